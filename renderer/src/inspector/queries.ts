import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { INSPECTOR_MAX_ENTRIES, type RequestSummary } from '../../../shared/inspector';
import { call } from '../transport';

export const inspectorKeys = {
  all: ['inspector'] as const,
  detail: (id: number) => ['inspector', 'detail', id] as const,
  curl: (id: number, withSecrets: boolean) => ['inspector', 'curl', id, withSecrets] as const,
};

/** How long the feed waits after a refused or failed follow before it asks again. */
const RETRY_MS = 2000;

/**
 * The listener's requests as they come, newest first: a loop of `inspector.follow`, which answers
 * at once with what is newer than the last seen, or waits for the next (docs/devices.md#request-inspector).
 * `reset` forgets what is shown (after a Clear).
 */
export function useRequestFeed() {
  const [entries, setEntries] = useState<RequestSummary[]>([]);
  const [enabled, setEnabled] = useState(true);
  const [error, setError] = useState<string | undefined>();
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let live = true;
    let after = 0;
    const loop = async (): Promise<void> => {
      while (live) {
        try {
          const feed = await call('inspector.follow', { after });
          if (!live) return;
          setError(undefined);
          setEnabled(feed.enabled);
          if (feed.entries.length > 0) setEntries((shown) => [...feed.entries, ...shown.filter((e) => e.id <= after)].slice(0, INSPECTOR_MAX_ENTRIES));
          // The ids restarted (the app did): what is shown is of another run.
          if (feed.last < after) setEntries(feed.entries);
          after = feed.last;
          if (!feed.enabled) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        } catch (e) {
          if (!live) return;
          setError(e instanceof Error ? e.message : String(e));
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        }
      }
    };
    setEntries([]);
    void loop();
    return () => {
      live = false;
    };
  }, [generation]);
  return { entries, enabled, error, reset: () => setGeneration((n) => n + 1) };
}

/** One request's headers and bodies, masked. */
export const useRequestDetail = (id: number) => useQuery({ queryKey: inspectorKeys.detail(id), queryFn: () => call('inspector.get', { id }) });

/** The curl command that sends the request again, with its secrets or with `***` in their place. */
export const useCurl = (id: number, withSecrets: boolean) =>
  useQuery({ queryKey: inspectorKeys.curl(id, withSecrets), queryFn: () => call('inspector.curl', { id, withSecrets }) });
