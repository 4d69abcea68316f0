import { useEffect, useId, useRef } from 'react';
import type { FormErrors } from './formErrors';

export interface Problem {
  /** The control to move to: its id, or its name in the summary's form. */
  target: string;
  label: string;
  message: string;
}

/**
 * Every problem of a form at once, above it, each a link to its field (the error also stays under
 * the field). It takes focus each time `attempt` changes with problems to show, so a person who
 * pressed Save hears them all and can go to each in turn.
 */
export function ErrorSummary({ problems, attempt }: { problems: Problem[]; attempt: number }) {
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);
  const shown = problems.length > 0;
  useEffect(() => {
    if (shown) box.current?.focus();
  }, [attempt, shown]);
  if (!shown) return null;
  return (
    <div className="error-summary" tabIndex={-1} ref={box} aria-labelledby={titleId}>
      <h3 id={titleId}>{problems.length === 1 ? 'There is a problem' : `There are ${problems.length} problems`}</h3>
      <ul>
        {problems.map((p) => (
          <li key={p.target}>
            <a
              href={`#${p.target}`}
              onClick={(e) => {
                e.preventDefault();
                const inForm = box.current?.closest('form')?.querySelector<HTMLElement>(`[name="${CSS.escape(p.target)}"]`);
                (document.getElementById(p.target) ?? inForm)?.focus();
              }}
            >
              {p.label}: {p.message}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The summary of a form whose fields carry `name`s: each field with an error, in the order of
 * `labels`, which names every field the form's refusals may name (the form's labels come from it too).
 */
export function FormProblems<F extends string>({ errors, labels }: { errors: FormErrors<F> & { attempt: number }; labels: { readonly [P in F]: string } }) {
  const fields = Object.keys(labels).filter((k): k is F => k in labels);
  const problems = fields.flatMap((field) => {
    const message = errors.field(field);
    return message ? [{ target: field, label: labels[field], message }] : [];
  });
  return <ErrorSummary problems={problems} attempt={errors.attempt} />;
}
