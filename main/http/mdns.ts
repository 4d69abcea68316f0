import { EventEmitter } from 'node:events';
import { networkInterfaces } from 'node:os';
import { Bonjour, type ServiceConfig } from 'bonjour-service';
import { ADDRESS_CHECK_MS, lanAddresses } from './addresses.js';

/** What is announced: the listener's name (without `.local`) and its ports. */
export interface Advertised {
  name: string;
  port: number;
  httpsPort?: number | undefined;
}

export interface AdvertiserOptions {
  /** A responder that cannot open its socket, or send: the listener keeps serving without it. */
  onError?: (error: Error) => void;
}

/** Goodbyes are sent before the sockets close; a socket that cannot send is not waited for longer. */
const GOODBYE_TIMEOUT_MS = 1000;
/** The DNS-SD key that says where an HTTP service's resources are (RFC 6763, section 7.1 and the _http registry). */
const API_PATH = { path: '/1/' };

/** The full name of a listener's `.local` name: what a device types, and what the certificate lists. */
export const dotLocal = (name: string): string => `${name}.local`;

/**
 * Advertises the listener on the local network by multicast DNS (bonjour-service): `NAME.local`
 * resolves to this computer's LAN IPv4 addresses (A records; IPv6 is left out, the listener binds
 * IPv4 only), and DNS-SD finds it as `NAME` under `_http._tcp` (and `_https._tcp` with HTTPS),
 * with `path=/1/`. One responder per LAN interface, each sending from it: a single
 * socket sends by the routing table, so the answers to a phone on a second network (a USB
 * tether, a test Wi-Fi) would leave by the default route and never reach it. Addresses are read
 * again every ADDRESS_CHECK_MS and the announcements made anew when they change. Stopping sends
 * goodbyes (TTL 0), so that devices forget the name at once. See docs/devices.md#a-stable-name.
 */
export class LocalNameAdvertiser {
  private responders: Bonjour[] = [];
  private addresses: string[] = [];
  private advertised: Advertised | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Announcements and goodbyes one after the other: a goodbye must not overtake the next announcement. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: AdvertiserOptions = {}) {}

  /** The `.local` name being announced, if any. */
  get name(): string | undefined {
    return this.advertised && dotLocal(this.advertised.name);
  }

  /** Whether any interface carries the announcements (POI_MDNS_INTERFACES may leave none). */
  get announced(): boolean {
    return this.responders.length > 0;
  }

  /** Starts announcing, or announces anew when the ports changed. */
  advertise(what: Advertised): Promise<void> {
    return this.serially(async () => {
      const same = this.advertised?.name === what.name && this.advertised.port === what.port && this.advertised.httpsPort === what.httpsPort;
      if (same) return;
      this.advertised = what;
      await this.restart();
      if (this.timer) return;
      this.timer = setInterval(() => void this.serially(() => this.follow()), ADDRESS_CHECK_MS);
      this.timer.unref();
    });
  }

  /** Says goodbye and closes the sockets. */
  stop(): Promise<void> {
    return this.serially(async () => {
      clearInterval(this.timer);
      this.timer = undefined;
      this.advertised = undefined;
      await this.silence();
    });
  }

  private serially(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** The records list every address: any change is announced anew. */
  private async follow(): Promise<void> {
    if (this.advertised && lanAddresses().sort().join() !== this.addresses.join()) await this.restart();
  }

  private async restart(): Promise<void> {
    await this.silence();
    const what = this.advertised;
    if (!what) return;
    this.addresses = lanAddresses().sort();
    this.responders = interfaceAddresses().map((address) => this.responder(address, what));
  }

  /** A responder that joins the group and sends on the interface whose address is `address`. */
  private responder(address: string, what: Advertised): Bonjour {
    const report = (error: unknown): void => this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
    // multicast-dns's options, passed through by bonjour-service (its type names only the service's).
    const socket: Partial<ServiceConfig> & { interface: string; bind: string } = { interface: address, bind: '0.0.0.0' };
    const bonjour = new Bonjour(socket, report);
    // Its socket's 'error' (a port it may not bind) has no listener there, and would throw.
    socketEvents(bonjour)?.on('error', report);
    // `host`: bonjour-service answers A queries for exactly this name (it defaults to the bare host
    // name, without .local). No probe: the name is this data folder's own, and the responders of the
    // other interfaces (every socket hears every interface's queries) would answer it, and the
    // probe would give up.
    const service = { name: what.name, host: dotLocal(what.name), txt: API_PATH, disableIPv6: true, probe: false } as const;
    bonjour.publish({ ...service, type: 'http', port: what.port });
    if (what.httpsPort !== undefined) bonjour.publish({ ...service, type: 'https', port: what.httpsPort });
    return bonjour;
  }

  /** Goodbyes from every responder, then their sockets closed. */
  private async silence(): Promise<void> {
    const responders = this.responders;
    this.responders = [];
    await Promise.all(
      responders.map(
        (bonjour) =>
          new Promise<void>((resolve) => {
            const close = (): void => {
              clearTimeout(late);
              bonjour.destroy(() => resolve());
            };
            const late = setTimeout(close, GOODBYE_TIMEOUT_MS);
            bonjour.unpublishAll(close);
          }),
      ),
    );
  }
}

/**
 * The interfaces the name is announced on, by name: comma-separated names, a trailing `*` for a
 * prefix (`wlan*`); unset, every LAN interface; empty, none. For an operator who wants the name off
 * a VPN or a container bridge (docs/devices.md#a-stable-name), and for the test suites, whose
 * announcements must stay on the interfaces they make.
 */
export const MDNS_INTERFACES_ENV = 'POI_MDNS_INTERFACES';

function announcedOn(name: string): boolean {
  const setting = process.env[MDNS_INTERFACES_ENV];
  if (setting === undefined) return true;
  return setting
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .some((want) => (want.endsWith('*') ? name.startsWith(want.slice(0, -1)) : name === want));
}

/** One IPv4 address of each LAN interface announced on: what names the interface to a multicast socket. */
function interfaceAddresses(): string[] {
  const addresses: string[] = [];
  for (const [name, list] of Object.entries(networkInterfaces())) {
    const first = list?.find((a) => a.family === 'IPv4' && !a.internal);
    if (first && announcedOn(name)) addresses.push(first.address);
  }
  return addresses;
}

/** bonjour-service keeps its multicast socket's events private; reached here only to hear its errors. */
function socketEvents(bonjour: Bonjour): EventEmitter | undefined {
  const server: unknown = Reflect.get(bonjour, 'server');
  const mdns: unknown = typeof server === 'object' && server !== null ? Reflect.get(server, 'mdns') : undefined;
  return mdns instanceof EventEmitter ? mdns : undefined;
}
