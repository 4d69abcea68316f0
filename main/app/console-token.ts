import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The console token of a data folder, in `console-token` (mode 0600) next to the database: the
 * same at every start of `npm start` and `cli serve` on that folder, so open tabs survive a
 * restart; `cli console rotate-token` replaces it, and running consoles follow at once.
 */
const CONSOLE_TOKEN_FILE = 'console-token';

const newConsoleToken = (): string => randomBytes(24).toString('base64url');
const USABLE = /^[A-Za-z0-9_-]{16,256}$/;
const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/** A complete private file holding `token`, next to `file`, ready to be linked or renamed into place. */
function privateCopy(file: string, token: string): string {
  const temp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${token}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return temp;
}

function readToken(file: string): string {
  const token = readFileSync(file, 'utf8').trim();
  if (!USABLE.test(token)) throw new Error(`${file} holds no console token: run \`npm run cli -- console rotate-token\` to write a new one`);
  return token;
}

/** The folder's console token; created on first use. A file others may read is made private. */
function loadConsoleToken(dir: string): string {
  const file = join(dir, CONSOLE_TOKEN_FILE);
  try {
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    return readToken(file);
  } catch (error) {
    if (errno(error) !== 'ENOENT') throw error;
  }
  const temp = privateCopy(file, newConsoleToken());
  try {
    // A link fails if the file exists: of two first starts at once, both keep the one linked first.
    linkSync(temp, file);
  } catch (error) {
    if (errno(error) !== 'EEXIST') throw error;
  } finally {
    rmSync(temp, { force: true });
  }
  return readToken(file);
}

/** Replaces the folder's console token with a new one, atomically; returns it. */
export function rotateConsoleToken(dir: string): string {
  const file = join(dir, CONSOLE_TOKEN_FILE);
  const token = newConsoleToken();
  renameSync(privateCopy(file, token), file);
  return token;
}

/**
 * The token a running console checks: the folder's, read again whenever the file is replaced
 * (rotated). A file removed or spoiled while running leaves the last good token in force.
 */
export function liveConsoleToken(dir: string): () => string {
  const file = join(dir, CONSOLE_TOKEN_FILE);
  const stamp = (): string | undefined => {
    try {
      const s = statSync(file);
      return `${s.ino}:${s.mtimeMs}:${s.size}`;
    } catch {
      return undefined;
    }
  };
  let token = loadConsoleToken(dir);
  let seen = stamp();
  return () => {
    const now = stamp();
    if (now !== undefined && now !== seen) {
      seen = now;
      try {
        token = readToken(file);
      } catch {
        // Keep the last good token; the next start says what is wrong with the file.
      }
    }
    return token;
  };
}
