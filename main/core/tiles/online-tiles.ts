import type { Settings } from '../../../shared/contract.js';
import { MAX_TILE_BYTES } from '../../../shared/maps.js';
import { ServiceError } from '../errors.js';
import type { MapTile } from '../maps/packages.js';
import type { TileCacheStore } from './cache-store.js';
import { freshUntil } from './freshness.js';

const USER_AGENT = 'poi-membership-desktop/0.1 (POI admin; map tiles kept for offline use)';
const TIMEOUT_MS = 8_000;
/** At most this many tiles fetched at once, as tile servers' usage policies ask. */
const PARALLEL = 4;
const MB = 1024 * 1024;
/**
 * What an online tile may be: raster images the map draws. Not SVG (a document that runs script
 * when opened from the app's own origin), nor anything else a server may send.
 */
const TILE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/avif']);

/** The body, read as it comes and stopped past the limit: a 400 MB "tile" is never held whole. */
async function boundedBody(response: Response, limit: number): Promise<Buffer | undefined> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > limit || !response.body) {
    await response.body?.cancel();
    return declared > limit ? undefined : Buffer.alloc(0);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, size);
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
}

export interface OnlineTile extends MapTile {
  /** Where it came from: the server now, the cache while fresh, or the cache past its date because the server did not answer. */
  source: 'network' | 'cache' | 'stale';
}

const unreachable = (why: string): ServiceError => new ServiceError('TILE_SERVER_UNREACHABLE', `the tile server did not answer with a tile (${why}), and none is cached`);

/**
 * The online tile server's tiles, fetched by the main process and kept in the data folder so
 * that what was seen online is still there offline (as Every Door and OsmAnd do). A tile is
 * served from the cache while the server's cache headers say it is fresh, asked again (with
 * its validators) once it is not, and served stale when the server cannot be reached.
 */
export class OnlineTiles {
  private readonly inFlight = new Map<string, Promise<OnlineTile>>();
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    private readonly store: TileCacheStore,
    private readonly settings: () => Settings,
    private readonly now: () => number,
    private readonly fetchTile: typeof fetch = fetch,
  ) {}

  tile(z: number, x: number, y: number): Promise<OnlineTile> {
    if (!(Number.isInteger(z) && z >= 0 && z <= 22 && Number.isInteger(x) && Number.isInteger(y) && x >= 0 && y >= 0 && x < 2 ** z && y < 2 ** z)) {
      return Promise.reject(new ServiceError('NOT_FOUND', `no tile ${z}/${x}/${y}`));
    }
    const { tileUrl } = this.settings();
    const url = tileUrl.replace('{z}', String(z)).replace('{x}', String(x)).replace('{y}', String(y)).replace('{s}', 'a').replace('{r}', '');
    const key = `${tileUrl}|${z}/${x}/${y}`;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const work = this.load(key, url).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, work);
    return work;
  }

  status(): { tiles: number; bytes: number; limitBytes: number } {
    return { ...this.store.status(), limitBytes: this.limit() };
  }

  clear(): { tiles: number; bytes: number; limitBytes: number } {
    this.store.clear();
    return this.status();
  }

  /** After the limit changed: down to it at once. */
  applyLimit(): void {
    this.store.shrinkTo(this.limit());
    this.store.reclaim();
  }

  private limit(): number {
    return this.settings().tileCacheMb * MB;
  }

  private async load(key: string, url: string): Promise<OnlineTile> {
    const now = this.now();
    const cached = this.limit() > 0 ? this.store.get(key) : undefined;
    if (cached && cached.expires_at > now) {
      this.store.touch(key, now);
      return { bytes: cached.data, contentType: cached.content_type, source: 'cache' };
    }
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'image/*' };
    if (cached?.etag) headers['if-none-match'] = cached.etag;
    if (cached?.last_modified) headers['if-modified-since'] = cached.last_modified;
    let response: Response;
    try {
      // A redirect is not followed: its target would escape the rules the configured address passed
      // (an http:// server must be on this computer or network).
      response = await this.limited(() => this.fetchTile(url, { headers, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' }));
    } catch (error) {
      if (cached) return { bytes: cached.data, contentType: cached.content_type, source: 'stale' };
      throw unreachable(error instanceof Error && error.name === 'TimeoutError' ? 'no answer in time' : 'not reachable');
    }
    if (response.status === 304 && cached) {
      this.store.touch(key, now, freshUntil(response.headers, now).expiresAt);
      return { bytes: cached.data, contentType: cached.content_type, source: 'cache' };
    }
    const contentType = response.headers.get('content-type')?.split(';')[0]?.trim() ?? '';
    const refusal = response.status >= 300 && response.status < 400
      ? `it redirected elsewhere (HTTP ${response.status}), which is not followed`
      : !response.ok
        ? `HTTP ${response.status}`
        : !TILE_TYPES.has(contentType)
          ? `it sent ${contentType || 'no content type'}, not a PNG, JPEG, WebP, GIF or AVIF image`
          : undefined;
    if (refusal !== undefined) await response.body?.cancel();
    const data = refusal === undefined ? await boundedBody(response, MAX_TILE_BYTES) : undefined;
    if (refusal !== undefined || data === undefined) {
      if (cached) return { bytes: cached.data, contentType: cached.content_type, source: 'stale' };
      throw unreachable(refusal ?? `it sent a tile over ${MAX_TILE_BYTES / MB} MiB, the most a tile may hold`);
    }
    const fresh = freshUntil(response.headers, now);
    if (fresh.store && this.limit() > 0) {
      this.store.put(key, { data, content_type: contentType, expires_at: fresh.expiresAt, etag: response.headers.get('etag'), last_modified: response.headers.get('last-modified') }, now, this.limit());
    }
    return { bytes: data, contentType, source: 'network' };
  }

  private async limited<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= PARALLEL) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
      this.queue.shift()?.();
    }
  }
}
