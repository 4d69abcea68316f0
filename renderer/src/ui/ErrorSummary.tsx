import { useEffect, useId, useRef } from 'react';

export interface Problem {
  /** The id of the control to move to. */
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
                document.getElementById(p.target)?.focus();
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
