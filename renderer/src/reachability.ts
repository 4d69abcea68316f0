import { useSyncExternalStore } from 'react';

/**
 * Whether the service answers, as the last request found: a request that cannot reach it (the
 * server stopped, the network gone) marks it unreachable, any answer marks it reachable again.
 * The banner (ServiceBanner.tsx) shows it and retries; forms say it at their button.
 */
let reachable = true;
const listeners = new Set<() => void>();

function set(value: boolean): void {
  if (value === reachable) return;
  reachable = value;
  for (const listener of listeners) listener();
}

export const markReachable = (): void => set(true);
export const markUnreachable = (): void => set(false);

export function useReachable(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => reachable,
  );
}

/** A request that got no answer at all: nothing it asked for happened, or can be known to have. */
export class ServiceUnreachable extends Error {
  constructor() {
    super('The service could not be reached, so this was not done. Check that the app is still running; what you typed is kept, so try again once it is back.');
    this.name = 'ServiceUnreachable';
  }
}

/** fetch, with "no answer" turned into ServiceUnreachable and every answer noted as reachable. */
export async function reach(input: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(input, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    markUnreachable();
    throw new ServiceUnreachable();
  }
  markReachable();
  return response;
}
