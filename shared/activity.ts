import type { ChangeReply } from './wire.js';

/**
 * An import as the activity list shows it: one entry however many POIs it wrote
 * (main/core/changes/change-log.ts), its changes listed on demand (`changes.ofImport`).
 */
export interface ImportActivity {
  /** The import's id: its changes' actor, its job's id, what `imports.undo` takes. */
  id: string;
  /** When it wrote its first change. */
  at: string;
  /** The file's name, as its job kept it; null when the job is no longer kept (or there was none). */
  fileName: string | null;
  added: number;
  updated: number;
  /** Categories it created (asked to create the missing ones). */
  categories: number;
  /** All its changes, the POIs' and the categories'. */
  changes: number;
  /** Every one of its changes reversed by an undo that stands: nothing left to undo. */
  undone: boolean;
}

/**
 * One entry of the activity list: a single change, an import whole, or the undo of an import
 * whole (the changes that reversed it, newest first, as one entry).
 */
export type ActivityEntry =
  | { kind: 'change'; change: ChangeReply }
  | { kind: 'import'; seq: number; import: ImportActivity }
  | { kind: 'import-undo'; seq: number; at: string; reversed: number; import: ImportActivity };

/** Which changes of an import `changes.ofImport` lists: its own, or those that reversed them. */
export const IMPORT_PARTS = ['import', 'undo'] as const;
