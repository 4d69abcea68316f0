/**
 * Host names (as `new URL(...).hostname` gives them) that name the device itself: typed on a
 * phone, they reach the phone, not this computer. The listener's page and panel leave them out of
 * what they offer a phone.
 */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

export const isLoopbackHost = (hostname: string): boolean => LOOPBACK_HOSTS.has(hostname);
