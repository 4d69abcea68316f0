import { chmodSync, closeSync, existsSync, linkSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Whether a database name is a file (not SQLite's in-memory database, named ':memory:' or ''). */
export const isDatabaseFile = (name: string): boolean => name !== ':memory:' && name !== '';

/** Owner read and write only: the database holds password hashes and token hashes. */
export const PRIVATE_FILE_MODE = 0o600;

/** Below this size `PRAGMA quick_check` at start takes well under a second. */
export const QUICK_CHECK_MAX_BYTES = 256 * 1024 * 1024;

/** The database file cannot be used as it is; the message says which file, why, and what exists to restore. */
class DatabaseFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseFileError';
  }
}

/** The database's own files: SQLite creates the WAL and shared-memory files with the database's mode. */
const companionFiles = (file: string): string[] => [file, `${file}-wal`, `${file}-shm`, `${file}-journal`];

/**
 * Tightens to 0600 the database, its companions and its backups where they exist with a looser
 * mode (an earlier version, or SQLite creating the file with the process's umask). Called right
 * after SQLite opens the file and before it writes anything: the WAL and shared-memory files,
 * created later, take the database's mode.
 */
export function makePrivate(file: string): void {
  for (const path of [...companionFiles(file), ...backupsOf(file).map((b) => b.path)]) {
    if (existsSync(path) && (statSync(path).mode & 0o077) !== 0) chmodSync(path, PRIVATE_FILE_MODE);
  }
}

/** Removes a database file this start created and left empty (it failed before writing a page). */
export function removeIfLeftEmpty(file: string): void {
  for (const path of companionFiles(file)) {
    if (existsSync(path) && statSync(path).size === 0) rmSync(path, { force: true });
  }
}

/**
 * Whether a 0-byte database file is another process's first start in progress (SQLite writes the
 * first page within moments of creating the file): waits up to 2 s for it to grow when it was
 * created in the last few seconds.
 */
export function isBeingCreated(file: string): boolean {
  if (Date.now() - statSync(file).mtimeMs > 5_000) return false;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < 2_000; waited += 50) {
    Atomics.wait(pause, 0, 0, 50);
    if (!existsSync(file) || statSync(file).size > 0) return true;
  }
  return false;
}

/** Unfinished creations (`poi.sqlite.creating-PID-TIME`) older than this were cut off: they are removed. */
const CREATION_LEFT_AFTER_MS = 60_000;

/**
 * Makes a new database file appear whole, so that no process killed during a first start leaves
 * a 0-byte file behind (which every later start would refuse: an empty file is what a cut-short
 * copy looks like). `init` opens a file under another name and writes its first page (switching
 * to WAL does) and closes it; the file is then linked into place, which fails rather than
 * replace a database another process created meanwhile (that one is then used).
 */
export function createWhole(file: string, init: (path: string) => void): void {
  const prefix = `${basename(file)}.creating-`;
  for (const left of filesIn(dirname(file), (name) => name.startsWith(prefix))) {
    if (Date.now() - left.modified.getTime() > CREATION_LEFT_AFTER_MS) rmSync(left.path, { force: true });
  }
  const temp = `${file}.creating-${process.pid}-${Date.now()}`;
  try {
    init(temp);
    chmodSync(temp, PRIVATE_FILE_MODE);
    linkSync(temp, file);
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
  } finally {
    for (const path of companionFiles(temp)) rmSync(path, { force: true });
  }
}

/** Creates an empty private file for a copy to be written into (VACUUM INTO takes an empty file). */
export function createPrivateFile(path: string): void {
  closeSync(openSync(path, 'wx', PRIVATE_FILE_MODE));
}

type BackupFile = { path: string; bytes: number; modified: Date };

/** The files of a folder whose names pass `keep`, with their size and time; none when there is no folder. */
function filesIn(dir: string, keep: (name: string) => boolean): BackupFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter(keep).map((name) => {
    const stat = statSync(join(dir, name));
    return { path: join(dir, name), bytes: stat.size, modified: stat.mtime };
  });
}

/** The backups kept next to the database (`poi.sqlite.v3-2026-...bak`), newest first. */
function backupsOf(file: string): BackupFile[] {
  const prefix = `${basename(file)}.`;
  return filesIn(dirname(file), (name) => name.startsWith(prefix) && name.endsWith('.bak')).sort((a, b) => b.modified.getTime() - a.modified.getTime());
}

/** The backups the application took (`backups/` beside the database: daily, by hand, before a restore). */
const takenBackups = (file: string): BackupFile[] => filesIn(join(dirname(file), 'backups'), (name) => name.startsWith('poi-') && name.endsWith('.sqlite'));

function restoreAdvice(file: string): string {
  // The restore command opens the database it restores into, so a damaged one is replaced by hand.
  const backups = [...backupsOf(file), ...takenBackups(file)].sort((a, b) => b.modified.getTime() - a.modified.getTime());
  if (backups.length === 0) return `No backup of it exists next to it (${dirname(file)}).`;
  const list = backups.map((b) => `  ${b.path}  (${b.bytes} bytes, ${b.modified.toISOString()})`).join('\n');
  return `Backups of it, newest first:\n${list}\nTo restore one, stop the application and copy it over ${file} (remove ${basename(file)}-wal and ${basename(file)}-shm too).`;
}

export const emptyFileError = (file: string): DatabaseFileError =>
  new DatabaseFileError(
    `The database file ${file} is empty (0 bytes). A database that was ever opened is never empty: it was probably cut short (a full disk, an interrupted copy). ` +
      `It is left as it is rather than silently replaced by a new, empty database.\n${restoreAdvice(file)}\n` +
      'To start afresh with an empty database instead, delete the file.',
  );

export const damagedFileError = (file: string, detail: string): DatabaseFileError =>
  new DatabaseFileError(`The database file ${file} is damaged (${detail}); nothing was changed.\n${restoreAdvice(file)}`);

/** SQLite's answers that mean the file itself is not a sound database. */
export const isDamage = (error: unknown): error is Error & { code: string } =>
  error instanceof Error && 'code' in error && (error.code === 'SQLITE_CORRUPT' || error.code === 'SQLITE_NOTADB' || String(error.code).startsWith('SQLITE_CORRUPT_'));

/** better-sqlite3's option for its addon, where it is not the default (Electron's build): none otherwise. */
export const bindingOption = (nativeBinding: string | undefined): { nativeBinding?: string } => (nativeBinding ? { nativeBinding } : {});
