import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { provideToken, tokenFrom, useTokenNeed } from './consoleToken';
import { consoleAccepts } from './transport';
import { Field } from './ui/Field';

/**
 * Browser mode without a token the console accepts: a modal dialog over the app. The app stays
 * as it was under it (a half-typed form included), and its requests go on once a token is given.
 */
export function ConsoleTokenDialog() {
  const need = useTokenNeed();
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [checking, setChecking] = useState(false);

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (need && !d.open) d.showModal();
    if (!need && d.open) d.close();
  }, [need]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (checking) return;
    const given = tokenFrom(text);
    if ('error' in given) {
      setError(given.error);
      return;
    }
    setChecking(true);
    try {
      if (await consoleAccepts(given.token)) {
        setText('');
        setError(undefined);
        provideToken(given.token);
      } else {
        setError('The console refused this token. It may have been rotated: use the address printed last.');
      }
    } catch {
      setError('The console did not answer: is the service still running?');
    } finally {
      setChecking(false);
    }
  };

  return (
    // Escape would leave an app that cannot do anything: the dialog stays until a token works.
    <dialog ref={dialog} className="token-dialog" aria-labelledby={titleId} onCancel={(e) => e.preventDefault()}>
      <form aria-labelledby={titleId} onSubmit={(e) => void submit(e)} noValidate>
        <h2 id={titleId}>{need === 'refused' ? 'The console no longer accepts this tab’s token' : 'This console needs its token'}</h2>
        <p>
          Open the address printed where the service was started: the <code>Admin UI: http://127.0.0.1:…/#token=…</code> line of{' '}
          <code>npm start</code> or <code>npm run cli -- serve</code>. Or paste that address, or the token alone, here.
        </p>
        {need === 'refused' && (
          <p>
            Nothing you were doing is lost: it is sent again as soon as the console accepts the new token (<code>npm run cli -- console rotate-token</code>{' '}
            prints one).
          </p>
        )}
        <Field label="Console address or token" name="console-token" value={text} onChange={setText} error={error} required />
        <div className="actions">
          <button type="submit" disabled={checking}>
            {checking ? 'Checking…' : 'Use this token'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
