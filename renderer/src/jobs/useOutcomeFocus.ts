import { useEffect, useRef } from 'react';

/**
 * A job's Cancel and the outcome that replaces it: when the Cancel had focus as the job ended,
 * focus moves to the outcome (else it would fall to the page's top with the removed button).
 * Whether it had focus is read at each render while the job runs (its progress is asked for
 * every 300 ms), before React removes the button.
 */
export function useOutcomeFocus(running: boolean) {
  const outcomeRef = useRef<HTMLParagraphElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const cancelHadFocus = useRef(false);
  if (running) cancelHadFocus.current = cancelRef.current !== null && document.activeElement === cancelRef.current;
  useEffect(() => {
    if (!running && cancelHadFocus.current) {
      cancelHadFocus.current = false;
      outcomeRef.current?.focus();
    }
  }, [running]);
  return { outcomeRef, cancelRef };
}
