import BetterSqlite3 from 'better-sqlite3';
import type { MapContainer } from '../../../shared/maps.js';
import { prepareCandidate, type LiveShape } from '../backups/check.js';
import type { ArchiveInfo } from '../maps/archive.js';
import { describePackage } from '../maps/describe.js';
import { bindingOption } from '../store/database-file.js';


/** better-sqlite3 copies at most this many pages per step: one step is one transaction on the target. */
const ALL_PAGES = 0x7fffffff;

/**
 * What runs in a side process (side-process.ts), by name: each reads or writes files named by
 * the app and answers plain data. A task's refusal is thrown as an Error and reaches the app
 * as its message.
 */
export const sideTasks = {
  /** What a map package says about itself, checked (maps/describe.ts). */
  'describe-package': (input: { file: string; container: MapContainer }, nativeBinding: string | undefined): Promise<ArchiveInfo> =>
    describePackage(input.file, input.container, nativeBinding),
  /** A backup's working copy checked and made fit to be copied in (backups/check.ts). */
  'prepare-backup': async (input: { copy: string; live: LiveShape }, nativeBinding: string | undefined): Promise<null> => {
    prepareCandidate(input.copy, input.live, nativeBinding);
    return null;
  },
  /**
   * A checked working copy copied INTO the live database in one step: one write transaction on
   * the live file, so every connection sees the old data or the restored data (backups.ts).
   */
  'copy-into': async (input: { source: string; target: string }, nativeBinding: string | undefined): Promise<null> => {
    const source = new BetterSqlite3(input.source, { readonly: true, fileMustExist: true, ...bindingOption(nativeBinding) });
    try {
      await source.backup(input.target, { progress: () => ALL_PAGES });
    } finally {
      source.close();
    }
    // The copy went into the live file's WAL: written back here, not by the app's next write
    // (its automatic checkpoint would copy the whole database on the app's event loop).
    const target = new BetterSqlite3(input.target, { fileMustExist: true, ...bindingOption(nativeBinding) });
    try {
      target.pragma('wal_checkpoint(PASSIVE)');
    } finally {
      target.close();
    }
    return null;
  },
} satisfies Record<string, (input: never, nativeBinding: string | undefined) => Promise<unknown>>;

export type SideTasks = typeof sideTasks;
export type SideTaskName = keyof SideTasks;
