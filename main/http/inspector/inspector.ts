import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INSPECTOR_BODY_BYTES, INSPECTOR_MAX_ENTRIES, INSPECTOR_REPLAY_MS, type RequestDetail, type RequestFeed, type ReplayResult } from '../../../shared/inspector.js';
import { ServiceError } from '../../core/errors.js';
import { REPLAY_HEADER, type Exchange } from './capture.js';
import { bodyText, copiedHeaders, curlCommand } from './curl.js';
import { maskJsonBody, maskJsonText } from './mask.js';
import { RequestRing } from './ring.js';

/**
 * The request inspector of one listener (docs/devices.md#request-inspector): its ring, and what
 * the console asks of it. `base` is where the listener can be reached from this process
 * (`http://127.0.0.1:PORT`), or undefined while it is not listening.
 */
export class Inspector {
  readonly ring: RequestRing;

  /** `folder`: the data folder, whose `requests/` the saved files go to (none: saving is refused). */
  constructor(
    private readonly base: () => string | undefined,
    options: { enabled?: boolean; folder?: string | undefined } = {},
  ) {
    this.ring = new RequestRing(options);
    this.folder = options.folder;
  }

  private readonly folder: string | undefined;

  private entry(id: number): Exchange {
    const found = this.ring.get(id);
    if (!found) throw new ServiceError('NOT_FOUND', `request ${id} is no longer kept: the inspector keeps the last ${INSPECTOR_MAX_ENTRIES} requests. Pick one from the list`, 'id');
    return found;
  }

  private listening(): string {
    const base = this.base();
    if (base === undefined) throw new ServiceError('CONFLICT', 'the API listener is off: turn it on in the Listener panel, then try again');
    return base;
  }

  follow(after: number): Promise<RequestFeed> {
    return this.ring.follow(after);
  }

  get(id: number): RequestDetail {
    return this.entry(id).detail();
  }

  curl(id: number, withSecrets: boolean): { command: string } {
    return { command: curlCommand(this.entry(id), this.listening(), withSecrets) };
  }

  configure(enabled: boolean): RequestFeed {
    this.ring.enabled = enabled;
    if (!enabled) {
      this.ring.clear();
      this.ring.release();
    }
    return this.ring.feed(this.ring.last);
  }

  /**
   * The requests kept, oldest first, as JSON lines (each one's detail, masked) in a new file of
   * the data folder's `requests/`, readable by this user alone.
   */
  save(): { file: string; count: number } {
    if (this.folder === undefined) throw new ServiceError('FORBIDDEN', 'requests are saved in the data folder, and this process has none (its database is in memory)');
    const dir = join(this.folder, 'requests');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const entries = this.ring.since(0).reverse();
    const file = join(dir, `requests-${new Date().toISOString().replace(/[:.]/g, '-')}-${entries[entries.length - 1]?.id ?? 0}-${randomUUID().slice(0, 8)}.jsonl`);
    writeFileSync(file, entries.map((e) => `${JSON.stringify(e.detail())}\n`).join(''), { mode: 0o600, flag: 'wx' });
    return { file, count: entries.length };
  }

  clear(): RequestFeed {
    this.ring.clear();
    return this.ring.feed(this.ring.last);
  }

  /**
   * Sends the original request again, secrets included, to the listener over loopback: the new
   * entry is marked as a replay of this one. Answers the replay's status and reply (masked).
   */
  async replay(id: number): Promise<ReplayResult> {
    const original = this.entry(id);
    const base = this.listening();
    // As the listener read it, and as fetch would send it: `/1/../ca.pem` would leave the API.
    const target = new URL(original.url, base);
    const asSent = original.url.split('?', 1)[0]!;
    if (!target.pathname.startsWith('/1/') || target.pathname !== asSent) {
      throw new ServiceError('FORBIDDEN', `request ${id}'s path ${JSON.stringify(asSent.slice(0, 200))} is not the API's as written, so it is not sent again: a replay goes to the API's paths only`, 'id');
    }
    const body = original.body;
    if (body !== undefined && (original.method === 'GET' || original.method === 'HEAD')) {
      throw new ServiceError('FORBIDDEN', `request ${id} is a ${original.method} with a body, which the inspector cannot send again; use Copy as curl instead`, 'id');
    }
    const headers = new Headers(copiedHeaders(original.headers, original.body));
    let sent: string | FormData | undefined;
    if (body && 'form' in body && body.form === 'multipart') {
      const form = new FormData();
      for (const [name, value] of body.entries) form.append(name, value);
      sent = form;
    } else if (body) {
      sent = bodyText(body, true);
    }
    const nonce = randomUUID();
    headers.set(REPLAY_HEADER, nonce);
    this.ring.expectReplay(nonce, id);
    try {
      const response = await fetch(target, { method: original.method, headers, body: sent, redirect: 'manual', signal: AbortSignal.timeout(INSPECTOR_REPLAY_MS) });
      const text = await response.text();
      const truncated = text.length > INSPECTOR_BODY_BYTES;
      const body = { kind: 'text' as const, text: truncated ? maskJsonText(text.slice(0, INSPECTOR_BODY_BYTES)) : maskJsonBody(text, 0), truncated };
      return { id: this.ring.replayed(nonce), replayOf: id, status: response.status, body };
    } catch (error) {
      this.ring.replayed(nonce);
      throw new ServiceError('CONFLICT', `the replay got no answer from the listener (${error instanceof Error ? error.message : String(error)}); check that it is listening, then try again`);
    }
  }
}
