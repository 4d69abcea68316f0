import { useEffect, useState } from 'react';

/** The time, again every `everyMs`: an age shown ("8 s old") grows while nothing else changes. */
export function useNow(everyMs: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(id);
  }, [everyMs]);
  return now;
}
