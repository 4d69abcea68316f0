import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { assertCoordinate, compactAddress, type GeocodedAddress, type Geocoder } from './geocoder.js';

export interface NominatimOptions {
  /** e.g. "https://nominatim.openstreetmap.org" or a self-hosted instance; may end in a path. */
  baseUrl: string;
  /** The longest a caller waits, queueing for the rate gate included. */
  timeoutMs?: number;
  /**
   * Quiet time between one answer from this server and the next request to it, so at most one
   * request per interval reaches it (the public server's policy: 1 s).
   */
  minIntervalMs?: number;
  /** Nominatim's usage policy asks for an agent that identifies the application. */
  userAgent?: string;
  /** Language of the names in the answer; English, to match the offline country names. */
  language?: string;
}

/** How the POI's history names this provider when it filled a field. */
export const NOMINATIM_SOURCE = 'Nominatim';

export const DEFAULT_TIMEOUT_MS = 1500;
export const DEFAULT_MIN_INTERVAL_MS = 1000;
const DEFAULT_USER_AGENT = 'poi-membership-desktop/0.1 (POI admin service; reverse geocoding of POI coordinates)';
/** A slot that leaves less than this for the request itself would be spent on a sure timeout. */
const MIN_REQUEST_MS = 100;

/** Nominatim's `address` object; it has many more keys (suburb, county, state...), unused here. */
const reverseResponse = z.object({
  address: z
    .object({
      house_number: z.string(),
      road: z.string(),
      pedestrian: z.string(),
      square: z.string(),
      city: z.string(),
      town: z.string(),
      village: z.string(),
      postcode: z.string(),
      country: z.string(),
      country_code: z.string(),
    })
    .partial()
    .optional(),
});
type NominatimAddress = NonNullable<z.infer<typeof reverseResponse>['address']>;

/** Countries whose addresses put the house number before the street ("10 Downing Street"). */
const NUMBER_FIRST = new Set(['us', 'ca', 'gb', 'ie', 'au', 'nz', 'fr', 'lu', 'za', 'in', 'sg', 'ph', 'my', 'th']);

const streetAddress = (a: NominatimAddress): string | undefined => {
  // Squares and pedestrian streets (Puerta del Sol) come under their own keys, not `road`.
  const street = a.road ?? a.pedestrian ?? a.square;
  if (street === undefined) return undefined;
  if (a.house_number === undefined) return street;
  return NUMBER_FIRST.has(a.country_code ?? '') ? `${a.house_number} ${street}` : `${street} ${a.house_number}`;
};

const toGeocoded = (a: NominatimAddress): GeocodedAddress =>
  compactAddress({
    address: streetAddress(a),
    city: a.city ?? a.town ?? a.village,
    country: a.country,
    postal_code: a.postcode,
  });

/**
 * One request at a time per server, each sent at least the interval after the previous one's
 * answer (or failure) came back. Spacing from the previous answer rather than the previous start
 * is what holds the server's view to one request per interval whatever the latency: a request
 * slowed on its way (a new connection, fetch's set-up on first use) cannot land closer to the
 * next one. Callers queue in call order.
 */
class RateGate {
  /** A lower bound on the next start, to turn a caller away at once rather than at its deadline. */
  private earliestNext = 0;
  private quietSince = Number.NEGATIVE_INFINITY;
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `send` in its turn, or resolves undefined without sending if that turn starts after `latestStart`. */
  run<T>(intervalMs: number, latestStart: number, send: () => Promise<T>): Promise<T | undefined> {
    const earliest = Math.max(performance.now(), this.earliestNext);
    if (earliest > latestStart) return Promise.resolve(undefined);
    this.earliestNext = earliest + intervalMs;
    const turn = this.tail.then(async () => {
      const start = Math.max(performance.now(), this.quietSince + intervalMs);
      if (start > latestStart) return undefined;
      await waitUntil(start);
      try {
        return await send();
      } finally {
        this.quietSince = performance.now();
      }
    });
    this.tail = turn.catch(() => undefined);
    return turn;
  }
}

/** One gate per server, so that several geocoders aimed at one server do not multiply its load. */
const gates = new Map<string, RateGate>();
const gateFor = (url: URL): RateGate => {
  let gate = gates.get(url.origin);
  if (gate === undefined) {
    gate = new RateGate();
    gates.set(url.origin, gate);
  }
  return gate;
};

const whenAborted = (signal: AbortSignal): Promise<undefined> =>
  new Promise((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));

const waitUntil = async (time: number): Promise<void> => {
  // Timers may fire a fraction of a millisecond early; never start before the granted slot.
  for (let left = time - performance.now(); left > 0; left = time - performance.now()) {
    await sleep(Math.ceil(left));
  }
};

/**
 * Online reverse geocoding against a Nominatim server (`/reverse?format=jsonv2`). Never rejects
 * for a valid coordinate and never keeps a caller longer than the timeout: when the server is
 * slow, failing, rate-limited by us or unreachable, the answer is `{}`.
 */
export class NominatimGeocoder implements Geocoder {
  private readonly endpoint: URL;
  private readonly timeoutMs: number;
  private readonly minIntervalMs: number;
  private readonly headers: Record<string, string>;

  constructor(options: NominatimOptions) {
    // new URL('reverse', 'https://host/nominatim') would drop the path's last segment.
    const base = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
    this.endpoint = new URL('reverse', base);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.minIntervalMs = options.minIntervalMs ?? DEFAULT_MIN_INTERVAL_MS;
    this.headers = {
      'User-Agent': options.userAgent ?? DEFAULT_USER_AGENT,
      'Accept-Language': options.language ?? 'en',
      Accept: 'application/json',
    };
  }

  async reverse(lat: number, lng: number): Promise<GeocodedAddress> {
    assertCoordinate(lat, lng);
    // One deadline for queueing, connecting and reading the body alike.
    const signal = AbortSignal.timeout(this.timeoutMs);
    const latestStart = performance.now() + this.timeoutMs - MIN_REQUEST_MS;
    const turn = gateFor(this.endpoint).run(this.minIntervalMs, latestStart, () => this.request(lat, lng, signal));
    // Queued behind a slow request to the same server, a caller still leaves at its deadline.
    const result = await Promise.race([turn, whenAborted(signal)]);
    return result ?? {};
  }

  private async request(lat: number, lng: number, signal: AbortSignal): Promise<GeocodedAddress> {
    const url = new URL(this.endpoint);
    url.search = new URLSearchParams({
      format: 'jsonv2',
      lat: String(lat),
      lon: String(lng),
      addressdetails: '1',
    }).toString();
    try {
      const response = await fetch(url, { headers: this.headers, signal });
      if (!response.ok) {
        await response.body?.cancel();
        return {};
      }
      const parsed = reverseResponse.safeParse(await response.json());
      return parsed.success && parsed.data.address !== undefined ? toGeocoded(parsed.data.address) : {};
    } catch {
      // Timeout, refused connection, bad JSON: the POI simply stays without these fields.
      return {};
    }
  }
}
