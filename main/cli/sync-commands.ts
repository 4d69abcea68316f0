import { fieldValue } from '../../shared/sync.js';
import { conflictView } from '../../shared/sync-view.js';
import { createCore } from '../core/service.js';
import { centralConflicts, syncOnce, SyncError, type SyncTarget } from '../sync-client/client.js';
import { loadTarget, saveTarget } from '../sync-client/credential.js';
import { resolveConflict, type Choice } from '../sync-client/resolve.js';
import { print } from './console-call.js';
import type { CliOptions } from './commands.js';
import { databasePath } from './options.js';

/** The choice a `sync resolve` command line makes. */
function choiceOf(options: CliOptions): Choice | undefined {
  if (options.mine) return { keep: 'mine' };
  if (options.theirs) return { keep: 'theirs' };
  if (options.pushed) return { keep: 'pushed' };
  if (options.earlier) return { keep: 'earlier' };
  if (options.value !== undefined) return { value: fieldValue.parse(JSON.parse(options.value)) };
  if (options.rename !== undefined) {
    const at = options.rename.indexOf('=');
    if (at < 0) throw new Error('--rename UUID=NEW_VALUE: the row to rename, then its new username, e-mail or name');
    return { rename: { uuid: options.rename.slice(0, at), to: options.rename.slice(at + 1) } };
  }
  if (options.merge !== undefined) {
    const [keep, drop] = options.merge.split(',');
    if (!keep || !drop) throw new Error('--merge KEEP_UUID,DROP_UUID: the row to keep, then the one to merge into it');
    return { merge: { keep, drop } };
  }
  return undefined;
}

/**
 * `sync [--url URL --credential CRED [--insecure-http]]`, `sync status`, `sync conflicts`,
 * `sync resolve ID --mine|--theirs|--pushed|--earlier|--value JSON|--rename UUID=VALUE|--merge KEEP,DROP`:
 * this desktop's data folder with a central.
 */
export async function runSyncCommand(sub: string | undefined, args: string[], options: CliOptions): Promise<number> {
  const { dir, file } = databasePath(options);
  const core = createCore({ file });
  try {
    if (options.url || options.credential) {
      if (!options.url || !(options.credential ?? process.env.POI_SYNC_CREDENTIAL)) throw new Error('give both --url URL and --credential DEVICE_ID.SECRET (from central device add)');
      saveTarget(dir, { url: options.url, credential: process.env.POI_SYNC_CREDENTIAL ? '' : options.credential!, ...(options['insecure-http'] ? { insecureHttp: true } : {}) });
    }
    const target = (): SyncTarget => {
      const t = loadTarget(dir);
      if (!t) throw new Error('this data folder has no central yet: sync --url URL --credential DEVICE_ID.SECRET');
      return t;
    };
    const { sync } = core.syncSide;
    if (sub === undefined) {
      // A line rewritten in place on a terminal; in a log, such lines would run together.
      const live = process.stderr.isTTY === true;
      const report = await syncOnce(core.syncSide, target(), live ? (step, n) => process.stderr.write(`\r${step}: ${n.toLocaleString('en')}   `) : undefined);
      if (live) process.stderr.write('\n');
      print(report);
    } else if (sub === 'status') {
      const point = sync.state.read();
      const clientId = point.clientId;
      const waiting = clientId ? sync.pending(clientId, point.pushed).size : 0;
      print({
        url: point.url,
        clientId,
        lastSync: point.lastSync ? new Date(point.lastSync).toISOString() : null,
        waiting,
        snapshotSent: point.snapshotSent,
        setAside: clientId ? sync.setAside.list(clientId) : [],
        refused: clientId ? sync.refused.list(clientId) : [],
      });
    } else if (sub === 'conflicts') {
      print((await centralConflicts(target())).map((c) => conflictView(c, sync.state.read().device)));
    } else if (sub === 'resolve') {
      const id = Number(args[0]);
      const choice = choiceOf(options);
      if (!Number.isInteger(id) || !choice) throw new Error('use: sync resolve ID --mine|--theirs|--pushed|--earlier|--value JSON, or for a clash --rename UUID=VALUE|--merge KEEP,DROP');
      print(await resolveConflict(core.syncSide, target(), id, choice));
    } else {
      throw new Error(`unknown sync command ${sub}; use status, conflicts or resolve (or none, to sync)`);
    }
    return 0;
  } catch (error) {
    throw error instanceof SyncError ? new Error(error.message) : error;
  } finally {
    core.close();
  }
}
