import { BRIDGE_GLOBAL, type Answer, type ConsoleBridge, type Input, type OpName, type Output } from '../../shared/contract';
import type { ErrorBody } from '../../shared/errors';
import type { ImportFormat } from '../../shared/file-formats';
import type { JobView, MapImportJob } from '../../shared/jobs';
import { consoleToken, tokenRefused } from './consoleToken';
import { reach } from './reachability';

declare global {
  interface Window {
    [BRIDGE_GLOBAL]?: ConsoleBridge;
  }
}

const post = (op: string, input: unknown, token: string): Promise<Response> =>
  reach(`/console/api/${encodeURIComponent(op)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
    credentials: 'omit',
  });

/** The console's own refusal of its token (an operation's 401, such as a wrong password, has no challenge). */
const tokenRefusal = (response: Response): boolean => response.status === 401 && response.headers.has('www-authenticate');

/** Whether the console accepts `token` (the token dialog checks before it lets the requests go). */
export const consoleAccepts = async (token: string): Promise<boolean> => !tokenRefusal(await post('listener.status', {}, token));

/**
 * Browser mode: the same operations over HTTP, with the console token in a header. A request
 * the console refuses for its token waits for a new one and is sent again: a form being saved
 * when the token was rotated keeps what was typed, and saves once the new token is given.
 */
const httpBridge: ConsoleBridge = {
  async invoke<K extends OpName>(op: K, input: Input<K>): Promise<Answer<Output<K>>> {
    for (;;) {
      const token = await consoleToken();
      const response = await post(op, input, token);
      if (!tokenRefusal(response)) return (await response.json()) as Answer<Output<K>>;
      tokenRefused(token);
    }
  },
};

/** In Electron the preload exposes the bridge; in a browser we talk HTTP to the same core. */
export const inBrowserMode = window[BRIDGE_GLOBAL] === undefined;
const bridge: ConsoleBridge = window[BRIDGE_GLOBAL] ?? httpBridge;

/** A refusal from the main process, carrying the catalog error (and the field it concerns). */
export class ConsoleError extends Error {
  constructor(readonly body: ErrorBody) {
    super(body.message ?? body.description);
    this.name = 'ConsoleError';
  }
}

export async function call<K extends OpName>(op: K, input: Input<K>): Promise<Output<K>> {
  const answer = await bridge.invoke(op, input);
  if (!answer.ok) throw new ConsoleError(answer.error);
  return answer.value;
}

export interface TileUrls {
  /** A map package's tiles. */
  packageTiles: (packageId: string) => string;
  /** The online tile server's, through the data folder's cache. */
  onlineTiles: string;
}

/**
 * Where tiles are: `{z}/{x}/{y}` URLs that Leaflet's images and the vector renderer fetch on
 * their own. Browser mode: the console's tile routes, with the tile key it derives from the
 * token (those requests carry no header). Electron: the app's own scheme.
 */
export async function tileUrls(): Promise<TileUrls> {
  if (!inBrowserMode) return { packageTiles: (id) => `${location.origin}/tiles/${id}/{z}/{x}/{y}`, onlineTiles: `${location.origin}/online-tiles/{z}/{x}/{y}` };
  for (;;) {
    const token = await consoleToken();
    const response = await reach('/console/tile-key', { method: 'POST', headers: { authorization: `Bearer ${token}` }, credentials: 'omit' });
    if (tokenRefusal(response)) {
      tokenRefused(token);
      continue;
    }
    const { value } = (await response.json()) as { value: { key: string; path: string; onlinePath: string } };
    return {
      packageTiles: (id) => `${value.path}/${encodeURIComponent(id)}/{z}/{x}/{y}?k=${value.key}`,
      onlineTiles: `${value.onlinePath}/{z}/{x}/{y}?k=${value.key}`,
    };
  }
}

/**
 * Browser mode: sends a map package file to the console, which answers its import job once the
 * file is in. Progress is the share of the file sent; the signal cancels (nothing is kept of a
 * cancelled upload).
 */
export const uploadMapPackage = (file: File, onProgress: (sent: number) => void, signal: AbortSignal): Promise<Answer<MapImportJob>> =>
  uploadFile<MapImportJob>(`/console/maps?filename=${encodeURIComponent(file.name)}`, file, onProgress, signal);

/** Browser mode: a CSV or GeoJSON file of POIs sent to the console, which answers its import job at once. */
export const uploadImport = (
  file: File,
  params: { clientId: string; format: ImportFormat; filename: string; dryRun: boolean; createCategories: boolean; addIdentical: boolean; defaultCategory?: string },
  onProgress: (sent: number) => void,
  signal: AbortSignal,
): Promise<Answer<JobView>> => {
  const { defaultCategory, ...rest } = params;
  const query = new URLSearchParams({ ...rest, dryRun: String(params.dryRun), createCategories: String(params.createCategories), addIdentical: String(params.addIdentical) });
  if (defaultCategory !== undefined) query.set('defaultCategory', defaultCategory);
  return uploadFile<JobView>(`/console/imports?${query}`, file, onProgress, signal);
};

/** A file as a request's body, with the upload's progress (0..1) and a cancel; the answer is the console's. */
function uploadFile<T>(url: string, file: File, onProgress: (sent: number) => void, signal: AbortSignal): Promise<Answer<T>> {
  return consoleToken().then(
    (token) =>
      new Promise((resolve, reject) => {
        const xhr = new XMLHttpRequest();
        xhr.open('POST', url);
        xhr.setRequestHeader('authorization', `Bearer ${token}`);
        xhr.setRequestHeader('content-type', 'application/octet-stream');
        xhr.upload.onprogress = (e) => onProgress(e.lengthComputable ? e.loaded / e.total : 0);
        xhr.onload = () => {
          if (xhr.status === 401 && xhr.getResponseHeader('www-authenticate')) tokenRefused(token);
          try {
            resolve(JSON.parse(xhr.responseText) as Answer<T>);
          } catch {
            reject(new Error(`the upload was answered with HTTP ${xhr.status}`));
          }
        };
        xhr.onerror = () => reject(new Error('the upload failed: the app did not answer'));
        xhr.onabort = () => reject(new DOMException('the upload was cancelled', 'AbortError'));
        signal.addEventListener('abort', () => xhr.abort(), { once: true });
        xhr.send(file);
      }),
  );
}

/**
 * Browser mode: downloads an export job's finished file. A download is a navigation, which sends
 * no header: the console gives a single-use address for a minute (asked with the token).
 */
export async function downloadExport(jobId: string): Promise<void> {
  for (;;) {
    const token = await consoleToken();
    const response = await reach('/console/downloads', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jobId }),
      credentials: 'omit',
    });
    if (tokenRefusal(response)) {
      tokenRefused(token);
      continue;
    }
    const answer = (await response.json()) as Answer<{ url: string }>;
    if (!answer.ok) throw new ConsoleError(answer.error);
    window.location.assign(answer.value.url);
    return;
  }
}
