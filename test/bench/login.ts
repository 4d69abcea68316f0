import { ARGON2_PARAMS } from '../../main/core/passwords.js';
import { nodeLoad, sendJson } from './http.js';
import type { NewClient } from './server-child.js';
import { findWrk, luaPostForm, runWrk, type LoadResult } from './wrk.js';

export interface LoginBenchResult {
  result: LoadResult;
  /** The hash parameters that bound the figure (main/core/passwords.ts). */
  argon2: typeof ARGON2_PARAMS;
  /** Of the workers that verify the hashes (libuv's pool). */
  threadPool: number;
}

/**
 * `POST /1/users/login.json` with correct credentials, `connections` at a time, for `seconds`.
 * Each login verifies an argon2id hash on libuv's thread pool, by design, and issues a token (one
 * durable write). The login rate limits count failed logins only, so none is hit here.
 */
export async function benchLogin(
  port: number,
  client: NewClient,
  options: { seconds: number; connections: number; dir: string },
): Promise<LoginBenchResult> {
  const username = 'benchlogin01';
  const pwd = 'bench-password-1';
  await sendJson(port, {
    method: 'POST',
    path: '/1/users.json',
    form: { access_token: client.admin_token, username, pwd, email: 'benchlogin@example.com' },
  });
  const form = { api_key: client.client_id, username, pwd };
  const path = '/1/users/login.json';
  const measure = (seconds: number): Promise<LoadResult> =>
    findWrk()
      ? runWrk({ port, script: luaPostForm(path, form), connections: options.connections, seconds, dir: options.dir })
      : nodeLoad({ port, connections: options.connections, seconds, next: () => ({ method: 'POST', path, form }) });
  await measure(1);
  return {
    result: await measure(options.seconds),
    argon2: ARGON2_PARAMS,
    threadPool: Number(process.env.UV_THREADPOOL_SIZE ?? 4),
  };
}
