import { useId, useState, type KeyboardEvent } from 'react';
import { ANY_ORIGIN, ANY_ORIGIN_WARNING, MAX_CORS_ORIGINS, ORIGIN_RULE, serializedOrigin } from '../../../shared/cors';

interface Props {
  origins: string[];
  onChange: (origins: string[]) => void;
  /** The server's refusal of the list, if any. */
  error?: string | undefined;
}

/**
 * The origins whose web pages may call the API from a browser (docs/devices.md#cors): a list to
 * add to and remove from, saved with the rest of the form by Apply. Enter in the text box adds
 * (it does not submit the form).
 */
export function CorsOrigins({ origins, onChange, error }: Props) {
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const inputId = useId();
  const hintId = useId();
  const errorId = useId();
  const shown = problem ?? error;

  const add = () => {
    const origin = serializedOrigin(typed);
    if (origin === null) {
      setProblem(`"${typed.trim()}" ${ORIGIN_RULE}.`);
      return;
    }
    if (origins.length >= MAX_CORS_ORIGINS && !origins.includes(origin)) {
      setProblem(`At most ${MAX_CORS_ORIGINS} origins: remove one first.`);
      return;
    }
    if (!origins.includes(origin)) onChange([...origins, origin]);
    setTyped('');
    setProblem(null);
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    add();
  };

  return (
    <fieldset className="choices cors-origins">
      <legend>Web pages allowed to call the API (CORS)</legend>
      {origins.length === 0 ? (
        <p className="note">None: browsers keep other sites' pages from reading the API's answers.</p>
      ) : (
        <ul className="origins" aria-label="Allowed origins">
          {origins.map((origin) => (
            <li key={origin}>
              <code>{origin}</code>
              <button type="button" aria-label={`Remove ${origin === ANY_ORIGIN ? 'any origin (*)' : origin}`} onClick={() => {
                  onChange(origins.filter((o) => o !== origin));
                  // The button goes with its line: focus stays in the list's group, on where the next origin is typed.
                  document.getElementById(inputId)?.focus();
                }}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {origins.includes(ANY_ORIGIN) && (
        <p className="danger" role="note">
          {ANY_ORIGIN_WARNING}
        </p>
      )}
      <div className={shown ? 'field field-error' : 'field'}>
        <label htmlFor={inputId}>Origin to allow</label>
        <div className="field-row">
          <input
            id={inputId}
            type="text"
            inputMode="url"
            autoComplete="off"
            spellCheck={false}
            placeholder="http://localhost:5173"
            value={typed}
            aria-invalid={shown ? true : undefined}
            aria-describedby={shown ? `${hintId} ${errorId}` : hintId}
            onChange={(e) => setTyped(e.target.value)}
            onKeyDown={onKey}
          />
          <button type="button" onClick={add}>
            Add origin
          </button>
        </div>
        <div className="hint" id={hintId}>
          Scheme, host and port of your web app, as its address bar shows them without a path; * allows any. Apply saves the list.
        </div>
        {shown && (
          <div className="error" id={errorId} role="alert">
            {shown}
          </div>
        )}
      </div>
    </fieldset>
  );
}
