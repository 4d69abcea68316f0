import { hostname } from 'node:os';
import { lanAddresses } from './addresses.js';
import { errorBody, type ErrorBody } from '../../shared/errors.js';

/**
 * DNS rebinding: a page of evil.example whose name is made to resolve to 127.0.0.1 (or to this
 * computer's LAN address) reaches the listener from the victim's browser, as its own origin, and
 * could read the API's and the console's answers. The browser still sends `Host: evil.example`,
 * so the listener answers only requests whose Host names it: the loopback names, this computer's
 * name (and its mDNS `.local` name), and, when bound to every interface, each of its addresses
 * (the ones `reachableAddresses` in listener-control.ts lists). The port is not checked: a
 * device behind `adb reverse` or a port forward may name another one, and the name is what a
 * rebinding attack cannot fake. See docs/devices.md#host-names.
 */

/** The loopback as this computer names it, and as the Android emulators see it (docs/devices.md#host-names). */
const LOOPBACK_NAMES = ['127.0.0.1', '[::1]', 'localhost', '10.0.2.2', '10.0.3.2'] as const;
/** Addresses that mean "every interface" in a listen call. */
const WILDCARDS = new Set(['0.0.0.0', '::']);
/** How often, at most, a Host that matches nothing makes the interfaces be read again (DHCP, a new VPN). */
const REFRESH_MS = 1000;


/** A Host header's name, lower-cased, without its port; an IPv6 literal keeps its brackets. */
export function hostName(header: string): string {
  const host = header.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/**
 * The names a listener bound to `bound` answers to; `lan` reads the interfaces (tests give their
 * own); `extra`, names it is known by besides (its `.local` name, docs/devices.md#a-stable-name).
 */
export function ownNames(bound: string, lan: () => string[] = lanAddresses, extra: readonly string[] = []): Set<string> {
  const machine = hostname().toLowerCase();
  const names = new Set<string>([...LOOPBACK_NAMES, machine, machine.endsWith('.local') ? machine : `${machine}.local`, ...extra.map((n) => n.toLowerCase())]);
  if (WILDCARDS.has(bound)) for (const a of lan()) names.add(a);
  else names.add(bound.includes(':') ? `[${bound.toLowerCase()}]` : bound.toLowerCase());
  return names;
}

export const misdirected = (host: string): ErrorBody =>
  errorBody(
    'MISDIRECTED_REQUEST',
    `this listener does not answer to the host name "${host.slice(0, 100)}"; use 127.0.0.1, localhost or one of its addresses shown in the Listener panel`,
  );

/** The check of one listener: `allows(request.headers.host)` on every request. */
export class HostAllowlist {
  private names: Set<string>;
  private readAt = Date.now();

  constructor(
    private readonly bound: string,
    private readonly lan: () => string[] = lanAddresses,
    private readonly extra: readonly string[] = [],
  ) {
    this.names = ownNames(bound, lan, extra);
  }

  /** True for a request without Host (HTTP/1.0; an HTTP/1.1 one is refused apart) or one naming this listener. */
  allows(host: string | undefined): boolean {
    if (host === undefined) return true;
    const name = hostName(host);
    if (this.names.has(name)) return true;
    if (!WILDCARDS.has(this.bound) || Date.now() - this.readAt < REFRESH_MS) return false;
    this.names = ownNames(this.bound, this.lan, this.extra);
    this.readAt = Date.now();
    return this.names.has(name);
  }
}
