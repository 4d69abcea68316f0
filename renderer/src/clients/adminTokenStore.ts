import { useSyncExternalStore } from 'react';

/** An administrator token just issued (creation or rotation): shown until dismissed, never fetched again. */
export interface RevealedToken {
  clientId: string;
  clientName: string;
  token: string;
  reason: 'created' | 'rotated';
}

// Kept outside the component so that leaving the panel (another tab, a client selected) does not
// lose the one chance to see the token: it stays until dismissed. Memory only, never persisted.
let current: RevealedToken | undefined;
const listeners = new Set<() => void>();

export function revealToken(token: RevealedToken | undefined): void {
  current = token;
  for (const listener of listeners) listener();
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
};

export const useRevealedToken = (): RevealedToken | undefined => useSyncExternalStore(subscribe, () => current);
