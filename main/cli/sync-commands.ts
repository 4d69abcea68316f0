import { fieldValue } from '../../shared/sync.js';
import { createCore } from '../core/service.js';
import { centralConflicts, syncOnce, SyncError, type SyncTarget } from '../sync/client.js';
import { loadTarget, saveTarget } from '../sync/credential.js';
import { resolveConflict, type Choice } from '../sync/resolve.js';
import { print } from './console-call.js';
import { databasePath, type CliOptions } from './options.js';

/**
 * `sync [--url URL --credential CRED]`, `sync status`, `sync conflicts`,
 * `sync resolve ID --mine|--theirs|--value JSON`: this desktop's data folder with a central.
 */
export async function runSyncCommand(sub: string | undefined, args: string[], options: CliOptions): Promise<number> {
  const { dir, file } = databasePath(options);
  const core = createCore({ file });
  try {
    if (options.url || options.credential) {
      if (!options.url || !(options.credential ?? process.env.POI_SYNC_CREDENTIAL)) throw new Error('give both --url URL and --credential DEVICE_ID.SECRET (from central device add)');
      saveTarget(dir, { url: options.url, credential: process.env.POI_SYNC_CREDENTIAL ? '' : options.credential! });
    }
    const target = (): SyncTarget => {
      const t = loadTarget(dir);
      if (!t) throw new Error('this data folder has no central yet: sync --url URL --credential DEVICE_ID.SECRET');
      return t;
    };
    if (sub === undefined) {
      const report = await syncOnce(core.syncSide, target(), (step, n) => process.stderr.write(`\r${step}: ${n.toLocaleString('en')}   `));
      process.stderr.write('\n');
      print(report);
    } else if (sub === 'status') {
      const point = core.syncSide.sync.state.read();
      const waiting = point.clientId ? core.syncSide.sync.pending(point.clientId, point.pushed).size : 0;
      print({ url: point.url, clientId: point.clientId, lastSync: point.lastSync ? new Date(point.lastSync).toISOString() : null, waiting, snapshotSent: point.snapshotSent });
    } else if (sub === 'conflicts') {
      print(await centralConflicts(target()));
    } else if (sub === 'resolve') {
      const id = Number(args[0]);
      const choice: Choice | undefined = options.mine ? { keep: 'mine' } : options.theirs ? { keep: 'theirs' } : options.value !== undefined ? { value: fieldValue.parse(JSON.parse(options.value)) } : undefined;
      if (!Number.isInteger(id) || !choice) throw new Error('use: sync resolve ID --mine|--theirs|--value JSON');
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
