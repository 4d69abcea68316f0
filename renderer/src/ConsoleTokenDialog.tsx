import * as Dialog from '@radix-ui/react-dialog';
import { useRef, useState, type FormEvent } from 'react';
import { provideToken, tokenFrom, useTokenNeed } from './consoleToken';
import { consoleAccepts } from './transport';
import { Field } from './ui/Field';
import { keepFocus } from './ui/Confirm';
import './ui/dialogs.css';

/**
 * Browser mode without a token the console accepts: a modal dialog over the app. The app stays
 * as it was under it (a half-typed form included), and its requests go on once a token is given.
 */
export function ConsoleTokenDialog() {
  const need = useTokenNeed();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [checking, setChecking] = useState(false);
  // Where the person was (a field half typed in) when a refusal opened it: where they go on.
  const wasAt = useRef<HTMLElement | undefined>(undefined);

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

  const title = need === 'refused' ? 'The console no longer accepts this tab’s token' : 'This console needs its token';
  // Escape or a click beside it would leave an app that cannot do anything: it stays until a token
  // works (it has no close button, and `open` follows the need alone).
  const stay = (e: Event): void => e.preventDefault();
  return (
    <Dialog.Root open={need !== undefined}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-backdrop" onMouseDown={keepFocus} />
        <Dialog.Content
          className="dialog token-dialog"
          onEscapeKeyDown={stay}
          onPointerDownOutside={stay}
          onInteractOutside={stay}
          onOpenAutoFocus={() => {
            wasAt.current = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
          }}
          onCloseAutoFocus={(e) => {
            // Radix gives focus to a trigger, and this dialog has none.
            e.preventDefault();
            if (wasAt.current?.isConnected) wasAt.current.focus();
          }}
        >
          <form aria-label={title} onSubmit={(e) => void submit(e)} noValidate>
            <Dialog.Title>{title}</Dialog.Title>
            <Dialog.Description>
              Open the address printed where the service was started: the <code>Admin UI: http://127.0.0.1:…/#token=…</code> line of{' '}
              <code>npm start</code> or <code>npm run cli -- serve</code>. Or paste that address, or the token alone, here.
            </Dialog.Description>
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
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
