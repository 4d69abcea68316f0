import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import { chmodSync, existsSync } from 'node:fs';
import { createPrivateFile, PRIVATE_FILE_MODE, bindingOption } from '../store/database-file.js';

export interface CachedTile {
  data: Buffer;
  content_type: string;
  /** Milliseconds since the epoch after which the server wants it asked again. */
  expires_at: number;
  etag: string | null;
  last_modified: string | null;
}

interface Row extends CachedTile {
  bytes: number;
}

/**
 * The tiles the online tile server sent, in a SQLite file of their own beside the database
 * (`tile-cache.sqlite`): it can be deleted at any time, and its writes never wait on the data's.
 * Bounded in bytes: past the limit, the tiles used longest ago go first, down to 90 %.
 */
/**
 * The cache is private like the data folder's other files (what a person viewed is their business):
 * made 0600 before SQLite opens it (its WAL and shared memory take the file's mode), and an older
 * cache made 0644 is tightened.
 */
function privateCache(file: string): void {
  // Another process on the same folder (the CLI beside the app) may make or remove these meanwhile.
  const unless = (codes: string[], work: () => void): void => {
    try {
      work();
    } catch (error) {
      if (!codes.includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
  };
  if (!existsSync(file)) unless(['EEXIST'], () => createPrivateFile(file));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) unless(['ENOENT'], () => chmodSync(f, PRIVATE_FILE_MODE));
}

export class TileCacheStore {
  private readonly db: Database;
  private readonly getStmt: Statement<[string], Row>;
  private readonly putStmt: Statement;
  private readonly touchStmt: Statement;
  private readonly oldest: Statement<[number], { key: string; bytes: number }>;
  private readonly dropStmt: Statement;
  private total: number;

  constructor(file: string, nativeBinding?: string) {
    if (file !== ':memory:') privateCache(file);
    this.db = new BetterSqlite3(file, bindingOption(nativeBinding));
    // A cache: losing its last writes in a power cut costs a download, never data.
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 2000');
    // Pages freed by a lower limit can be given back to the disk (reclaim); set before the first table.
    this.db.pragma('auto_vacuum = INCREMENTAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS tiles (
      key TEXT PRIMARY KEY, data BLOB NOT NULL, content_type TEXT NOT NULL, bytes INTEGER NOT NULL,
      expires_at INTEGER NOT NULL, etag TEXT, last_modified TEXT, used_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS tiles_by_use ON tiles (used_at);`);
    this.getStmt = this.db.prepare('SELECT data, content_type, bytes, expires_at, etag, last_modified FROM tiles WHERE key = ?');
    this.putStmt = this.db.prepare(
      `INSERT INTO tiles (key, data, content_type, bytes, expires_at, etag, last_modified, used_at) VALUES (@key, @data, @content_type, @bytes, @expires_at, @etag, @last_modified, @used_at)
       ON CONFLICT (key) DO UPDATE SET data = excluded.data, content_type = excluded.content_type, bytes = excluded.bytes, expires_at = excluded.expires_at,
         etag = excluded.etag, last_modified = excluded.last_modified, used_at = excluded.used_at`,
    );
    this.touchStmt = this.db.prepare('UPDATE tiles SET used_at = ?, expires_at = coalesce(?, expires_at) WHERE key = ?');
    this.oldest = this.db.prepare('SELECT key, bytes FROM tiles ORDER BY used_at LIMIT ?');
    this.dropStmt = this.db.prepare('DELETE FROM tiles WHERE key = ?');
    this.total = (this.db.prepare('SELECT coalesce(sum(bytes), 0) AS total FROM tiles').get() as { total: number }).total;
  }

  get(key: string): CachedTile | undefined {
    return this.getStmt.get(key);
  }

  /** Marks a tile used now (and fresh until `expiresAt`, after a 304). */
  touch(key: string, now: number, expiresAt?: number): void {
    this.touchStmt.run(now, expiresAt ?? null, key);
  }

  put(key: string, tile: CachedTile, now: number, limitBytes: number): void {
    if (tile.data.length > limitBytes) return;
    const before = this.getStmt.get(key)?.bytes ?? 0;
    this.putStmt.run({ key, ...tile, bytes: tile.data.length, used_at: now });
    this.total += tile.data.length - before;
    if (this.total > limitBytes) this.shrinkTo(Math.floor(limitBytes * 0.9));
  }

  status(): { tiles: number; bytes: number } {
    const tiles = (this.db.prepare('SELECT count(*) AS n FROM tiles').get() as { n: number }).n;
    return { tiles, bytes: this.total };
  }

  clear(): void {
    this.db.exec('DELETE FROM tiles');
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.db.exec('VACUUM');
    this.total = 0;
  }

  /** Applies a lower limit at once (a setting changed). */
  shrinkTo(target: number): void {
    this.db.transaction(() => {
      while (this.total > target) {
        const batch = this.oldest.all(64);
        if (batch.length === 0) break;
        for (const { key, bytes } of batch) {
          if (this.total <= target) break;
          this.dropStmt.run(key);
          this.total -= bytes;
        }
      }
    })();
  }

  /**
   * Gives the space of dropped tiles back to the disk (a lower limit must shrink the files, not only
   * the count): the WAL checkpointed and truncated, free pages released. A cache made before
   * incremental vacuum was set is vacuumed whole once, which turns it on.
   */
  reclaim(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    if (Number(this.db.pragma('auto_vacuum', { simple: true })) === 2) this.db.pragma('incremental_vacuum');
    else this.db.exec('VACUUM');
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  close(): void {
    this.db.close();
  }
}
