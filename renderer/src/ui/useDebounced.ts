import { useEffect, useState } from 'react';

/**
 * `value` once it has stayed the same for `ms`: a question asked while the user types goes out
 * when the typing pauses, not at every key. Compared by JSON, so an object rebuilt at each render
 * with the same content does not restart the wait.
 */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  const key = JSON.stringify(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
    // The key stands for the value: a new object with the same content is no change.
  }, [key, ms]);
  return settled;
}
