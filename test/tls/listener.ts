import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiServer } from '../../main/http/server.js';
import { testCore, type TestCore } from '../support/core.js';

/** One HTTPS GET trusting only `ca` (or nothing but the system's): its status and body, or the TLS error's code. */
export function httpsGet(url: string, ca?: string): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = request(url, { ...(ca ? { ca } : {}), timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end();
  });
}

export interface HttpsListener {
  dir: string;
  core: TestCore;
  server: ApiServer;
  port: number;
  httpsPort: number;
  /** A valid get.json call (docs/api.md): a client's administrator token and one of its POIs. */
  poiPath: string;
  close(): Promise<void>;
}

/** A real listener over a core on disk (so with its certificate authority), on free HTTP and HTTPS ports, with one POI. */
export async function startHttpsListener(host = '127.0.0.1'): Promise<HttpsListener> {
  const dir = mkdtempSync(join(tmpdir(), 'poi-https-'));
  const core = testCore({ file: join(dir, 'poi.sqlite') });
  const authority = core.tls;
  if (!authority) throw new Error('a core on disk has a certificate authority');
  const client = core.clients.create({ name: 'Alpha' });
  const server = new ApiServer(core, { host, port: 0, tls: { authority, httpsPort: 0 } });
  const started = await server.start();
  const added = await fetch(`http://127.0.0.1:${started.port}/1/pois/add.json?oauth_token=${client.admin_token}&lat=40.4169&lng=-3.7035&name=Sol&categories=7`);
  const { id } = (await added.json()) as { id: number };
  return {
    dir,
    core,
    server,
    port: started.port,
    httpsPort: started.httpsPort ?? 0,
    poiPath: `/1/pois/get.json?oauth_token=${client.admin_token}&poi=${id}`,
    close: async () => {
      await server.stop();
      core.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
