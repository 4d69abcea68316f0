import type { z } from 'zod';
import { helloReply, MAX_PUSH, pullReply, type ConflictReply, type PushedChange, type PushReply } from '../../shared/sync.js';
import type { SyncCore } from '../core/sync/sync-parts.js';

export interface SyncTarget {
  /** The sync service's address, e.g. https://central.example.org (no trailing path). */
  url: string;
  /** The device credential the central's administrator issued: DEVICE_ID.SECRET. */
  credential: string;
}

export interface SyncReport {
  clientId: string;
  pushed: number;
  conflicts: number;
  pulled: number;
}

function checked<T>(schema: z.ZodType<T>, body: unknown, path: string): T {
  const result = schema.safeParse(body);
  if (!result.success) throw new SyncError(`the central's answer to ${path} is not one this desktop understands: ${result.error.issues[0]?.message ?? 'malformed'} (at ${result.error.issues[0]?.path.join('.') ?? ''})`);
  return result.data;
}

/** A refusal or failure of the central, with its JSON error's message when it sent one. */
export class SyncError extends Error {}

export async function call<T>(target: SyncTarget, path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(new URL(path, target.url), {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${target.credential}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: AbortSignal.timeout(60_000),
    });
  } catch (error) {
    throw new SyncError(`the central at ${target.url} cannot be reached: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`);
  }
  const body = (await response.json().catch(() => undefined)) as (T & { message?: string }) | undefined;
  if (!response.ok || body === undefined) throw new SyncError(`the central refused ${path.split('?')[0]}: ${response.status} ${body?.message ?? response.statusText}`);
  return body;
}

/**
 * One sync: this desktop's changes up (first, once, what it held before its first sync), then
 * the central's down, page by page. Every step is kept as it completes (the acknowledged log
 * position, the pull cursor with the rows it covers), so a sync cut off anywhere and run again
 * carries on; a push repeated after a lost answer applies once (its operation ids).
 */
export async function syncOnce(core: SyncCore, target: SyncTarget, onProgress?: (step: string, done: number, total?: number) => void): Promise<SyncReport> {
  // The central's answers are checked like any input: a wrong or corrupted one stops the sync, saying so, before anything is applied.
  const hello = checked(helloReply, await call<unknown>(target, '/sync/hello'), '/sync/hello');
  const { state } = core.sync;
  let point = state.read();
  if (point.clientId && point.clientId !== hello.client_id) {
    throw new SyncError(`this desktop syncs client application ${point.clientId}; the credential is for ${hello.client_id}`);
  }
  if (!core.clients.find(hello.client_id)) core.clients.create({ id: hello.client_id, name: hello.client_name ?? `Synced ${hello.client_id.slice(0, 8)}` });
  state.write({ clientId: hello.client_id, url: target.url });
  point = state.read();
  const report: SyncReport = { clientId: hello.client_id, pushed: 0, conflicts: 0, pulled: 0 };
  const send = async (changes: readonly PushedChange[]): Promise<void> => {
    if (changes.length === 0) return;
    const reply = await call<PushReply>(target, '/sync/push', { method: 'POST', body: { changes } });
    report.pushed += changes.length;
    report.conflicts += reply.conflicts;
    onProgress?.('push', report.pushed);
  };

  if (!point.snapshotSent) {
    const resumeAt = core.sync.lastSeq();
    for (const changes of core.sync.outbox.snapshot(hello.device, hello.client_id, MAX_PUSH)) await send(changes);
    state.write({ snapshotSent: true, pushed: resumeAt });
    point = state.read();
  }
  for (let after = point.pushed; ; ) {
    const page = core.sync.outbox.fromLog(hello.device, hello.client_id, after, MAX_PUSH);
    await send(page.changes);
    state.write({ pushed: page.last });
    after = page.last;
    if (page.done) break;
  }

  let total: number | undefined;
  for (let cursor = state.read().cursor; ; ) {
    // The first page also says how many rows wait: the progress bar's total.
    const page = checked(pullReply, await call<unknown>(target, `/sync/pull?after=${cursor}${total === undefined ? '&count=1' : ''}`), '/sync/pull');
    total ??= page.remaining;
    const pending = core.sync.pending(hello.client_id, state.read().pushed);
    core.sync.inbox.apply(hello.client_id, page.rows, pending, () => state.write({ cursor: page.cursor }));
    report.pulled += page.rows.length;
    onProgress?.('pull', report.pulled, total);
    cursor = page.cursor;
    if (!page.more) break;
  }
  state.write({ lastSync: core.clock.now() });
  return report;
}

/** The central's open conflicts of this desktop's client application. */
export const centralConflicts = (target: SyncTarget): Promise<ConflictReply[]> => call<ConflictReply[]>(target, '/sync/conflicts');

export const markResolved = (target: SyncTarget, id: number, resolution: unknown): Promise<unknown> =>
  call(target, `/sync/conflicts/${id}/resolved`, { method: 'POST', body: { resolution } });
