import { ApiServer, type ApiServerOptions } from '../../main/http/server.js';
import type { CoreOptions } from '../../main/core/service.js';
import { testCore, type TestCore } from './core.js';

export type Encoding = 'form' | 'multipart' | 'query' | 'json';
export type Fields = Record<string, string | number | boolean>;

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  /** The body as an object, for the common case; fails the test if it is not one. */
  json: Record<string, unknown>;
}

export interface TestServer {
  core: TestCore;
  base: string;
  server: ApiServer;
  call(method: string, path: string, fields?: Fields, encoding?: Encoding): Promise<Answer>;
  get(path: string, fields?: Fields): Promise<Answer>;
  post(path: string, fields?: Fields, encoding?: Encoding): Promise<Answer>;
  close(): Promise<void>;
}

const strings = (fields: Fields): Array<[string, string]> => Object.entries(fields).map(([k, v]) => [k, String(v)]);

/** A real listener on an ephemeral loopback port over the real core on :memory:. */
export async function startTestServer(
  coreOptions: Partial<CoreOptions> = {},
  serverOptions: ApiServerOptions = {},
): Promise<TestServer> {
  const core = testCore(coreOptions);
  const server = new ApiServer(core, { port: 0, ...serverOptions });
  const { port } = await server.start();
  const base = `http://127.0.0.1:${port}`;

  const call = async (method: string, path: string, fields: Fields = {}, encoding: Encoding = 'form'): Promise<Answer> => {
    let url = `${base}${path}`;
    const init: RequestInit = { method };
    if (encoding === 'query' || method === 'GET' || method === 'HEAD') {
      const qs = new URLSearchParams(strings(fields)).toString();
      if (qs) url += `${url.includes('?') ? '&' : '?'}${qs}`;
    } else if (encoding === 'form') {
      init.body = new URLSearchParams(strings(fields));
    } else if (encoding === 'multipart') {
      const form = new FormData();
      for (const [k, v] of strings(fields)) form.append(k, v);
      init.body = form;
    } else {
      init.body = JSON.stringify(fields);
      init.headers = { 'content-type': 'application/json' };
    }
    const res = await fetch(url, init);
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Left as text: the assertion on it will say what came back.
    }
    return {
      status: res.status,
      headers: res.headers,
      body,
      get json(): Record<string, unknown> {
        if (typeof body !== 'object' || body === null || Array.isArray(body)) {
          throw new Error(`expected a JSON object, got: ${text.slice(0, 200)}`);
        }
        return body as Record<string, unknown>;
      },
    };
  };

  return {
    core,
    base,
    server,
    call,
    get: (path, fields) => call('GET', path, fields),
    post: (path, fields, encoding) => call('POST', path, fields, encoding),
    close: async () => {
      await server.stop();
      core.close();
    },
  };
}
