import { ARGON2_PARAMS } from '../../main/core/members/passwords.js';
import { nodeLoad, sendJson } from './http.js';
import type { NewClient } from './server-child.js';
import { findWrk, luaPostForms, runWrk, type LoadResult } from './wrk.js';

export interface LoginBenchResult {
  result: LoadResult;
  /** The hash parameters that bound the figure (main/core/passwords.ts). */
  argon2: typeof ARGON2_PARAMS;
  /** Of the workers that verify the hashes (libuv's pool). */
  threadPool: number;
}

/**
 * `POST /1/users/login.json` with correct credentials, `connections` at a time, for `seconds`.
 * Each login verifies an argon2id hash on libuv's thread pool, by design, reserves and gives back
 * a rate-limit attempt, and issues a token (durable writes, group-committed). The logins take
 * `connections` members in turn: a member's attempts are reserved before its password is checked,
 * so more than its limit (5) of one member's logins at once would be refused, correct or not.
 */
export async function benchLogin(
  port: number,
  client: NewClient,
  options: { seconds: number; connections: number; dir: string },
): Promise<LoginBenchResult> {
  const pwd = 'bench-password-1';
  const forms: Array<Record<string, string>> = [];
  for (let i = 0; i < options.connections; i++) {
    const username = `benchlogin${String(i).padStart(2, '0')}`;
    await sendJson(port, {
      method: 'POST',
      path: '/1/users.json',
      form: { access_token: client.admin_token, username, pwd, email: `${username}@example.com` },
    });
    forms.push({ api_key: client.client_id, username, pwd });
  }
  const path = '/1/users/login.json';
  let turn = 0;
  const measure = (seconds: number): Promise<LoadResult> =>
    findWrk()
      ? runWrk({ port, script: luaPostForms(path, forms), connections: options.connections, seconds, dir: options.dir })
      : nodeLoad({ port, connections: options.connections, seconds, next: () => ({ method: 'POST', path, form: forms[turn++ % forms.length]! }) });
  await measure(1);
  return {
    result: await measure(options.seconds),
    argon2: ARGON2_PARAMS,
    threadPool: Number(process.env.UV_THREADPOOL_SIZE ?? 4),
  };
}
