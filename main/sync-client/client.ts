import { z } from 'zod';
import { conflictReply, helloReply, MAX_PUSH, pullReply, pushReply, type ConflictReply, type LogMark, type PullReply, type PushedChange } from '../../shared/sync.js';
import { newUuid } from '../core/store/new-uuid.js';
import type { SyncCore } from '../core/sync/sync-parts.js';

export interface SyncTarget {
  /** The sync service's address, e.g. https://central.example.org (no trailing path). */
  url: string;
  /** The device credential the central's administrator issued: DEVICE_ID.SECRET. */
  credential: string;
  /** Send the credential over plain http:// to another computer anyway (`--insecure-http`; the Sync panel shows it in red). */
  insecureHttp?: boolean;
}

export interface SyncReport {
  clientId: string;
  /** This desktop's device id, as the central knows it. */
  device: string;
  pushed: number;
  conflicts: number;
  /** Rows received from the central: written by others (this desktop's own come back only after a restore). */
  pulled: number;
  /** This desktop's changes the central refused in this sync (kept, with their reasons: `sync status`). */
  refused: number;
  /** Rows received that could not be applied here, all told (kept, with their reasons, and tried again at every sync). */
  setAside: number;
  /** This data folder was found restored (its log went back in time): it asked for its own rows again. */
  restored: boolean;
}

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** The most bytes of JSON one push sends: well under the central's limit (BODY_LIMITS.push, 32 MiB). */
const MAX_PUSH_BYTES = 16 * 1024 * 1024;

/**
 * The credential travels only where no one else reads it: https, or plain http to this very
 * computer (a tunnel, a TLS proxy beside the central), unless told otherwise. Checked before
 * anything is sent.
 */
function checkTransport(target: SyncTarget): void {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    throw new SyncError(`${target.url} is not an address: give the sync service's https:// address`);
  }
  if (url.protocol === 'https:' || target.insecureHttp) return;
  if (url.protocol === 'http:' && LOOPBACK_HOST.test(url.hostname)) return;
  throw new SyncError(
    `${target.url} is plain http to another computer: the device credential would cross the network readable by anyone on the way. Use the central's https:// address (docs/central.md), or, on a network you trust, --insecure-http`,
  );
}

function checked<T>(schema: z.ZodType<T>, body: unknown, path: string): T {
  const result = schema.safeParse(body);
  if (!result.success) throw new SyncError(`the central's answer to ${path} is not one this desktop understands: ${result.error.issues[0]?.message ?? 'malformed'} (at ${result.error.issues[0]?.path.join('.') ?? ''})`);
  return result.data;
}

/** A refusal or failure of the central, with its JSON error's message when it sent one. */
export class SyncError extends Error {}

export async function call<T>(target: SyncTarget, path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  checkTransport(target);
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
 * the central's down, page by page, then the rows set aside before tried again. Every step is
 * kept as it completes (the acknowledged log position, the pull cursor with the rows it covers),
 * so a sync cut off anywhere and run again carries on; a push repeated after a lost answer
 * applies once (its operation ids).
 *
 * A restored file is told by the central's mark (the last change of this desktop's log it
 * applied): when this log holds another change at that seq, or none, the file went back in time.
 * Its changes since are new operations (each change has its own id), so they are all applied;
 * the ones the central already had are skipped by their ids; and its pulls ask for its own rows
 * too until one has run to the end, so it gets back what the restore took from it.
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
  const report: SyncReport = { clientId: hello.client_id, device: hello.device, pushed: 0, conflicts: 0, pulled: 0, refused: 0, setAside: 0, restored: false };
  state.write({ clientId: hello.client_id, url: target.url, device: hello.device });
  if (hello.mark) {
    if (core.sync.opAt(hello.device, hello.mark.seq) !== hello.mark.op) {
      // The seq may hold a row a pull applied since: handled once, the same mark is no new restore.
      if (point.restoreSeen !== hello.mark.op) {
        report.restored = true;
        state.write({ resync: true, restoreSeen: hello.mark.op });
      }
    } else if (point.pushed < hello.mark.seq) {
      // The central applied up to there and its answer was lost: nothing before it needs sending again.
      state.write({ pushed: hello.mark.seq });
    }
  }
  point = state.read();

  const send = async (changes: readonly PushedChange[], mark?: LogMark): Promise<void> => {
    if (changes.length === 0) return;
    const body = { changes, ...(mark ? { mark } : {}) };
    // Big rows (reports' proposals, 16 KiB each with their base and state) can make a page larger
    // than the central takes: such a page goes in halves, the mark with the second.
    if (changes.length > 1 && JSON.stringify(body).length > MAX_PUSH_BYTES) {
      const half = Math.ceil(changes.length / 2);
      await send(changes.slice(0, half));
      await send(changes.slice(half), mark);
      return;
    }
    const reply = checked(pushReply, await call<unknown>(target, '/sync/push', { method: 'POST', body }), '/sync/push');
    const refused = new Set(reply.refused.map((r) => r.op));
    // A row refused before and accepted now is no longer listed (with none listed, nearly always,
    // nothing to do); then what this push refused is listed, even beside an accepted change of its row.
    if (core.sync.refused.size(hello.client_id) > 0) for (const c of changes) if (!refused.has(c.op)) core.sync.refused.accepted(c.entity, c.uuid);
    if (reply.refused.length > 0) core.sync.refused.keep(hello.client_id, reply.refused);
    report.pushed += changes.length - refused.size;
    report.refused += refused.size;
    report.conflicts += reply.conflicts;
    onProgress?.('push', report.pushed);
  };

  if (!point.snapshotSent) {
    // Drawn once, at the first try: a retry sends the same operations and the log from the same point.
    const snapshotId = point.snapshotId ?? newUuid();
    const resumeAt = point.snapshotAt ?? core.sync.lastSeq();
    state.write({ snapshotId, snapshotAt: resumeAt });
    // The log's position the snapshot stands for, as the central remembers this desktop by: a file
    // restored to before it is then told, even before any change of the log was sent.
    const op = core.sync.opAt(hello.device, resumeAt);
    const mark = op ? { op, seq: resumeAt } : undefined;
    for (const changes of core.sync.outbox.snapshot(hello.device, hello.client_id, snapshotId, MAX_PUSH)) await send(changes, mark);
    state.write({ snapshotSent: true, pushed: resumeAt });
    point = state.read();
  }
  for (let after = point.pushed; ; ) {
    const page = core.sync.outbox.fromLog(hello.device, hello.client_id, after, MAX_PUSH);
    await send(page.changes, page.mark);
    state.write({ pushed: page.last });
    after = page.last;
    if (page.done) break;
  }

  let total: number | undefined;
  const own = state.read().resync;
  // The first page also says how many rows wait: the progress bar's total.
  const pageAfter = (cursor: number, first: boolean): Promise<PullReply> => {
    const asked = call<unknown>(target, `/sync/pull?after=${cursor}${first ? '&count=1' : ''}${own ? '&own=1' : ''}`).then((body) => checked(pullReply, body, '/sync/pull'));
    // Heard when awaited; a page asked for ahead and never awaited (the sync stopped) is let go.
    asked.catch(() => undefined);
    return asked;
  };
  // Pages are applied a slice at a time where the data is on a file (the app answers meanwhile).
  const paged = core.sync.pagedApply?.();
  try {
    for (let coming = pageAfter(state.read().cursor, true); ; ) {
      const page = await coming;
      // The next page is asked for before this one is written: the central's query and the
      // transfer overlap the local transaction. The central keeps no cursor: asking ahead is free.
      if (page.more) coming = pageAfter(page.cursor, false);
      total ??= page.remaining;
      const pendingNow = (): Set<string> => core.sync.pending(hello.client_id, state.read().pushed);
      const cursor = (): void => state.write({ cursor: page.cursor, ...(page.more ? {} : { resync: false }) });
      if (paged === undefined) core.sync.inbox.apply(hello.client_id, page.rows, pendingNow(), cursor);
      else {
        await paged.apply(hello.client_id, page.rows, pendingNow);
        // After the page's rows are committed: a cursor is never ahead of what it covers.
        cursor();
      }
      report.pulled += page.rows.length;
      onProgress?.('pull', report.pulled, total);
      if (!page.more) break;
    }
  } finally {
    paged?.close();
  }
  report.setAside = core.sync.inbox.retry(hello.client_id, core.sync.pending(hello.client_id, state.read().pushed));
  state.write({ lastSync: core.clock.now() });
  return report;
}

/** The central's open conflicts of this desktop's client application. */
export const centralConflicts = async (target: SyncTarget): Promise<ConflictReply[]> => checked(z.array(conflictReply), await call<unknown>(target, '/sync/conflicts'), '/sync/conflicts');
