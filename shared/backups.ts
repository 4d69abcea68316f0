/** Why a backup was taken: by hand, by the daily timer, or just before a restore replaced the data. */
export type BackupKind = 'manual' | 'daily' | 'before-restore';

/** One backup file in the data folder's `backups/`. */
export interface BackupInfo {
  /** The file's name (never a path): what restore and remove take. */
  name: string;
  kind: BackupKind;
  /** When it was taken, ISO 8601 UTC. */
  takenAt: string;
  bytes: number;
}

/** What a restore did: the backup it restored, and the backup of the state it replaced. */
export interface RestoreReply {
  restored: string;
  saved: BackupInfo;
}

/** The automatic backups kept by default (one a day, the last week). */
export const DEFAULT_KEEP_DAILY = 7;
export const MAX_KEEP_DAILY = 365;

export interface BackupsView {
  backups: BackupInfo[];
  /** How many daily backups are kept; 0 turns them off. */
  keepDaily: number;
  /** Where they are (the data folder's backups/), to show the operator; null for an in-memory database. */
  folder: string | null;
}
