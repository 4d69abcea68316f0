import { createServer } from 'node:http';

/** One request as the other server received it: method, target and every header, raw. */
export interface Recorded {
  method: string;
  url: string;
  /** Name and value pairs, as they came on the wire (rawHeaders). */
  headers: Array<[string, string]>;
}

export interface RecordingServer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  requests: Recorded[];
  close(): Promise<void>;
}

// The smallest valid PNG (1x1, transparent), so that an <img> really loads.
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/**
 * Another program on this computer: an HTTP server on another port of 127.0.0.1 that records
 * every request it receives, serves a 1x1 image at /pixel.png, the given HTML pages at their
 * paths, and "ok" elsewhere. Whatever a browser sends it, a local program could keep.
 */
export async function startRecordingServer(html: Record<string, string>): Promise<RecordingServer> {
  const requests: Recorded[] = [];
  const server = createServer((request, response) => {
    const headers: Array<[string, string]> = [];
    for (let i = 0; i < request.rawHeaders.length; i += 2) headers.push([request.rawHeaders[i]!, request.rawHeaders[i + 1]!]);
    requests.push({ method: request.method ?? '', url: request.url ?? '', headers });
    const path = (request.url ?? '/').split('?')[0]!;
    if (path === '/pixel.png') response.writeHead(200, { 'content-type': 'image/png' }).end(PIXEL);
    else if (html[path] !== undefined) response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html[path]);
    else response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    origin,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
