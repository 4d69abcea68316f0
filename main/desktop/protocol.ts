import { net, protocol } from 'electron';
import { statSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { contentSecurityPolicy } from '../../shared/content-security-policy.js';
import type { MapTile } from '../core/maps/packages.js';
import { APP_ORIGIN, APP_SCHEME } from './security.js';

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** Must run before the app is ready: the scheme is standard (relative URLs) and secure. */
export function registerScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

type ReadTile = (id: string, z: number, x: number, y: number) => Promise<MapTile | null>;
type ReadOnlineTile = (z: number, x: number, y: number) => Promise<MapTile>;

const ONLINE_TILE = /^\/online-tiles\/(\d+)\/(\d+)\/(\d+)$/;

/** /online-tiles/Z/X/Y: the online tile server's tile through the data folder's cache; 502 when neither has it. */
async function serveOnlineTile(pathname: string, read: ReadOnlineTile): Promise<Response> {
  const match = ONLINE_TILE.exec(pathname);
  if (!match) return new Response('not found', { status: 404 });
  try {
    const tile = await read(Number(match[1]), Number(match[2]), Number(match[3]));
    return new Response(Buffer.from(tile.bytes), { status: 200, headers: { 'content-type': tile.contentType, 'cache-control': 'no-store' } });
  } catch {
    return new Response(null, { status: 502 });
  }
}

const TILE = /^\/tiles\/([0-9a-f-]{36})\/(\d+)\/(\d+)\/(\d+)$/;

/** /tiles/ID/Z/X/Y: a map package's tile, as browser mode's tile route serves it (204 where it has none). */
async function serveTile(pathname: string, readTile: ReadTile): Promise<Response> {
  const match = TILE.exec(pathname);
  if (!match) return new Response('not found', { status: 404 });
  const [, id, z, x, y] = match;
  const tile = await readTile(id!, Number(z), Number(x), Number(y));
  if (tile === null) return new Response(null, { status: 204 });
  return new Response(Buffer.from(tile.bytes), { status: 200, headers: { 'content-type': tile.contentType, 'cache-control': 'private, max-age=31536000, immutable' } });
}

/**
 * Serves the built renderer from disk under poi-app://renderer/, with the same strict CSP as
 * browser mode (tile server images only), and map packages' tiles under /tiles/. Paths that
 * climb out of the folder are refused.
 */
export function serveRenderer(rendererDir: string, tileOrigins: () => string[], readTile: ReadTile, readOnlineTile: ReadOnlineTile): void {
  const root = normalize(rendererDir + sep);
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (`${url.protocol}//${url.host}` !== APP_ORIGIN) return new Response('not found', { status: 404 });
    if (url.pathname.startsWith('/tiles/')) return serveTile(url.pathname, readTile);
    if (url.pathname.startsWith('/online-tiles/')) return serveOnlineTile(url.pathname, readOnlineTile);
    let relative: string;
    try {
      relative = decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname);
    } catch {
      return new Response('not found', { status: 404 });
    }
    const file = normalize(join(root, relative));
    if (!file.startsWith(root) || !isFile(file)) return new Response('not found', { status: 404 });
    const response = await net.fetch(pathToFileURL(file).toString());
    const headers = new Headers(response.headers);
    headers.set('content-security-policy', contentSecurityPolicy(tileOrigins()));
    headers.set('x-content-type-options', 'nosniff');
    return new Response(response.body, { status: response.status, headers });
  });
}
