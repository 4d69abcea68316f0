import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { markReachable, useReachable } from './reachability';
import { readVersion } from './pois/queries';

/** Seconds between tries while the service cannot be reached: soon at first, then less often. */
const RETRY_SECONDS = [2, 4, 8, 15];

/**
 * Says so at the top of the page while the service cannot be reached (what is shown may be out
 * of date), tries again by itself (and on "Try now"), and once it answers reads everything again:
 * the map and the panels catch up with what changed meanwhile.
 */
export function ServiceBanner() {
  const reachable = useReachable();
  const queryClient = useQueryClient();
  const [tries, setTries] = useState(0);
  const [left, setLeft] = useState(RETRY_SECONDS[0]!);
  const wasDown = useRef(false);

  useEffect(() => {
    if (reachable) {
      setTries(0);
      if (wasDown.current) void queryClient.invalidateQueries();
      wasDown.current = false;
      return;
    }
    wasDown.current = true;
    setLeft(RETRY_SECONDS[Math.min(tries, RETRY_SECONDS.length - 1)]!);
    const timer = setInterval(() => setLeft((s) => s - 1), 1000);
    return () => clearInterval(timer);
  }, [reachable, tries, queryClient]);

  const tryNow = (): void => {
    readVersion().then(markReachable, () => setTries((n) => n + 1));
  };
  useEffect(() => {
    if (!reachable && left <= 0) tryNow();
  }, [reachable, left]);

  if (reachable) return null;
  return (
    <div className="service-banner" role="alert">
      <p>
        <strong>The service cannot be reached.</strong> What the map and the panels show may be out of date, and nothing can be saved until it is back.{' '}
        <span className="service-banner-retry" aria-hidden="true">{left > 0 ? `Trying again in ${left} s.` : 'Trying again…'}</span>
      </p>
      <button type="button" onClick={tryNow}>
        Try now
      </button>
    </div>
  );
}
