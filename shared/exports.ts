// The formats are declared in file-formats.ts; these names stay for the modules that use them.
export { EXPORT_FORMATS, type ExportFormat } from './file-formats.js';
import type { ExportFormat } from './file-formats.js';

/** What an export wrote. */
export interface ExportReport {
  format: ExportFormat;
  rows: number;
  bytes: number;
  /** The name a download saves it under. */
  fileName: string;
  /** Where the desktop app wrote it (the file the save dialog chose); null for a download, kept in the data folder until fetched. */
  savedTo: string | null;
}

/** What an import did. */
export interface ImportReport {
  /** The change log's actor id of this import's additions (`{"kind": "import", "id": ...}`). */
  importId: string;
  rows: number;
  added: number;
  updated: number;
  /** Each refused row: where it is in the file, its name when it has one, and why (shared/import-words.ts). The other rows go in. */
  refused: Array<{ where: string; reason: string; name?: string }>;
  /** How many rows were refused: `refused` lists the first 1,000 (and one entry saying how many more). */
  refusedCount: number;
  /**
   * The refused rows by cause, each cause told once with how many rows it refused (counted over
   * every refused row), in the order each cause was first met. Reports older than it have none.
   */
  refusedGroups?: Array<{ reason: string; count: number }>;
  ignoredColumns: string[];
  createdCategories: string[];
  /**
   * Rows added next to a POI of the client (already there, or added earlier by the same import)
   * within 50 m with a similar name: added all the same, listed to check (the first 1,000; `duplicateCount` says how many).
   */
  possibleDuplicates: Array<{ where: string; name: string; of: { id: number | null; name: string; distance_m: number; where?: string } }>;
  duplicateCount: number;
  /**
   * Rows skipped because they repeat a POI of the client, or an earlier row of the file, exactly
   * (same name folded, within 1 m, same fields): importing the same file twice changes nothing.
   * The first 1,000; `identicalCount` says how many. None unless identical rows were to be skipped.
   */
  identical: Array<{ where: string; name: string; of: { id: number | null; name: string; distance_m: number; where?: string } }>;
  identicalCount: number;
  dryRun: boolean;
  cancelled: boolean;
  /** Why the import stopped before the file's end (the file breaks off, the disk is full); null when it read the whole file or was cancelled. */
  failed: string | null;
  /** A cancelled or failed import's writes were undone: the client is as it was before. */
  undone: boolean;
}
