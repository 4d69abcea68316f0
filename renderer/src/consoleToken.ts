import { useSyncExternalStore } from 'react';

/**
 * Browser mode's console token, kept in this tab's session storage: per origin (so per port),
 * never sent by the browser on its own, gone when the tab closes. It arrives in the address's
 * fragment (`#token=...`, never sent to any server), or pasted into the token dialog.
 */
const KEY = 'poi-admin.console-token';
const USABLE = /^[A-Za-z0-9_-]{16,256}$/;

/** Why the token dialog shows: no token yet, or the console refused this tab's (rotated). */
export type TokenNeed = 'missing' | 'refused' | undefined;

let need: TokenNeed;
let waiting: Array<(token: string) => void> = [];
const listeners = new Set<() => void>();
const notify = (): void => listeners.forEach((l) => l());

const stored = (): string | undefined => sessionStorage.getItem(KEY) ?? undefined;

/** Stores the token and sends again every request that was waiting for one. */
export function provideToken(token: string): void {
  sessionStorage.setItem(KEY, token);
  need = undefined;
  const resume = waiting;
  waiting = [];
  resume.forEach((r) => r(token));
  notify();
}

/** The token to send: the stored one, else the one the person gives (the dialog asks meanwhile). */
export function consoleToken(): Promise<string> {
  const token = stored();
  if (token !== undefined) return Promise.resolve(token);
  need ??= 'missing';
  notify();
  return new Promise((resolve) => waiting.push(resolve));
}

/** The console refused `token`: forget it, unless a newer one has replaced it meanwhile. */
export function tokenRefused(token: string): void {
  if (stored() !== token) return;
  sessionStorage.removeItem(KEY);
  need = 'refused';
  notify();
}

export const useTokenNeed = (): TokenNeed =>
  useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => need,
  );

/**
 * What the person pasted: an address carrying the token (`#token=`, or the `?token=` printed by
 * older versions), or the token alone.
 */
export function tokenFrom(text: string): { token: string } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { error: 'Paste the address printed when the service started, or its token.' };
  if (USABLE.test(trimmed)) return { token: trimmed };
  let url: URL;
  try {
    url = new URL(trimmed, location.href);
  } catch {
    return { error: 'This is neither an address nor a token.' };
  }
  const token = new URLSearchParams(url.hash.slice(1)).get('token') ?? url.searchParams.get('token');
  if (token === null || !USABLE.test(token)) return { error: 'This address carries no console token (it ends in #token=…).' };
  if (url.origin !== location.origin) return { error: `This address is another console's (${url.origin}): open it instead.` };
  return { token };
}

/**
 * Moves a `#token=` of the address into session storage and out of the address bar (and so out
 * of history and bookmarks), keeping a `#map=` view if the address has one too.
 */
export function takeTokenFromAddress(): void {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get('token');
  if (token === null) return;
  const map = params.get('map');
  history.replaceState(history.state, '', `${location.pathname}${location.search}${map === null ? '' : `#map=${map}`}`);
  if (USABLE.test(token)) provideToken(token);
}
