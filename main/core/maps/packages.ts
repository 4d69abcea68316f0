import { open } from 'node:fs/promises';
import { copyCounted } from '../jobs/copy-counted.js';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { MAX_PACKAGE_NAME, TILE_CONTENT_TYPES, type MapContainer, type MapPackage } from '../../../shared/maps.js';
import { ServiceError } from '../errors.js';
import { creditFromHtml } from '../settings/html-credit.js';
import { newUuid } from '../store/new-uuid.js';
import { PRIVATE_FILE_MODE } from '../store/database-file.js';
import type { JobPhase, JobProgress } from '../../../shared/jobs.js';
import { runSideTask, SideTaskFailed, type SideLauncher } from '../jobs/side-process.js';
import { BadPackage, type ArchiveInfo, type TileArchive } from './archive.js';
import { describePackage, openArchive } from './describe.js';

export interface MapTile {
  bytes: Uint8Array;
  contentType: string;
}

export interface ImportOptions {
  /** The name to list it under; else the file's own, else the file name. */
  name?: string | undefined;
  /** Move the file instead of copying it (an upload already in the maps folder). */
  move?: boolean;
  /** The file's name as the person knows it, when `source` is not it (an upload's temporary file). */
  fileName?: string | undefined;
  /** Stops the import, keeping nothing of it (a job's Cancel). */
  signal?: AbortSignal | undefined;
  /** Where the import says how far it got: its step, and bytes copied. */
  progress?: ((update: Partial<Pick<JobProgress, 'phase' | 'bytes'>>) => void) | undefined;
  /** A file this application made (the sample city): read here, without a side process. */
  trusted?: boolean;
}

/**
 * How long reading a package being imported may take (its metadata, its zooms, a few tiles: well
 * under a second for a sound file of gigabytes); past it the reader is killed and the file refused.
 */
const MAX_PACKAGE_READ_MS = 30_000;

/** How a package's file is read: better-sqlite3's addon, the time limit (tests lower it), the side process's launcher. */
export interface PackageReading {
  nativeBinding?: string | undefined;
  readLimitMs?: number;
  launcher?: SideLauncher | undefined;
}

/** A Cancel, as the import sees it (the job that asked for it ends cancelled). */
const cancelled = (): Error => new Error('the import was cancelled: nothing of it was kept');

/** How old a leftover of an interrupted import must be before it is deleted. */
const STALE_MS = 60 * 60 * 1000;
/** Past the file system's clock tick (a few ms; a second on some): a folder unchanged this long keeps its list (MapPackages.list). */
const LISTED_SETTLED_MS = 1_000;
const SQLITE_MAGIC = 'SQLite format 3\0';

/** Which container a file is, from its first bytes (not its name). */
function containerOf(file: string): MapContainer {
  const head = Buffer.alloc(16);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') === SQLITE_MAGIC) return 'mbtiles';
  if (head.toString('latin1', 0, 7) === 'PMTiles') {
    if (head[7] !== 3) throw new BadPackage(`it is a PMTiles archive of version ${head[7]}; only version 3 is read`);
    return 'pmtiles';
  }
  throw new BadPackage('it is neither an MBTiles file nor a PMTiles archive');
}

const sidecarOf = (dir: string, id: string): string => join(dir, `${id}.json`);
const fileOf = (dir: string, p: Pick<MapPackage, 'id' | 'container'>): string => join(dir, `${p.id}.${p.container}`);
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The package's bytes on disk before its description says it is there. */
/** On disk before its description is written; off the event loop (a package can be gigabytes of dirty pages). */
async function syncFile(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes a small file so that a crash leaves the old one or the new one, never half of it. */
function writeDurably(file: string, text: string): void {
  const part = `${file}.part`;
  const fd = openSync(part, 'w', 0o600);
  try {
    writeFileSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(part, file);
}

/**
 * The offline map packages in the data folder's `maps/`: each is its file, named by id, and a
 * JSON description beside it. The description is written last, so a package is there once its
 * description is (an import cut short leaves a file without one, swept at the next start).
 * Packages are local to this computer: they are files, not data, and are not in the change log.
 */
export class MapPackages {
  /** Packages read since start, kept open: opening an MBTiles file costs more than reading a tile. */
  private readonly open = new Map<string, { archive: TileArchive; contentType: string }>();

  constructor(
    private readonly dir: string | undefined,
    private readonly now: () => number,
    private readonly side: PackageReading = {},
  ) {
    if (dir !== undefined && existsSync(dir)) this.sweep(dir);
  }

  /**
   * On the first start (no maps folder yet), the sample city, so that a new user sees streets
   * offline at once. Whoever removes it does not get it back: the folder is there from then on.
   */
  async importSampleOnFirstStart(sample: string | undefined): Promise<MapPackage | undefined> {
    if (this.dir === undefined || existsSync(this.dir) || sample === undefined || !existsSync(sample)) return undefined;
    this.folder();
    return this.importFile(sample, { trusted: true });
  }

  /** Where an upload is written before it is imported (same file system, so it is moved, not copied). */
  uploadPath(): string {
    const dir = this.folder();
    return join(dir, `.upload-${newUuid(this.now())}.part`);
  }

  /**
   * The list as last read, by the folder's modification time. The tile route asks for it at
   * every tile and the street geocoder at every lookup (every row of a geocoded import), and a
   * package comes and goes only by a rename or an unlink in the folder (this process's or the
   * CLI's), which moves that time. Kept only when the folder last changed over LISTED_SETTLED_MS
   * before the read: a change in the same tick of the file system's clock cannot go unseen.
   */
  private listed: { mtimeMs: number; packages: MapPackage[] } | undefined;

  list(): MapPackage[] {
    if (this.dir === undefined || !existsSync(this.dir)) return [];
    const mtimeMs = statSync(this.dir).mtimeMs;
    if (this.listed?.mtimeMs === mtimeMs) return [...this.listed.packages];
    const packages = this.readList(this.dir);
    this.listed = Date.now() - mtimeMs > LISTED_SETTLED_MS ? { mtimeMs, packages } : undefined;
    return [...packages];
  }

  private readList(dir: string): MapPackage[] {
    const found: MapPackage[] = [];
    for (const entry of readdirSync(dir)) {
      const id = entry.slice(0, -'.json'.length);
      if (!entry.endsWith('.json') || !ID.test(id)) continue;
      try {
        const described = JSON.parse(readFileSync(join(dir, entry), 'utf8')) as MapPackage;
        if (existsSync(fileOf(dir, described))) found.push(described);
      } catch {
        // A description that cannot be read is not listed; its package can be imported again.
      }
    }
    return found.sort((a, b) => a.importedAt.localeCompare(b.importedAt) || a.id.localeCompare(b.id));
  }

  /**
   * A package file into the maps folder: read and checked first (in a side process, with a time
   * limit: the file is a stranger's), then copied (or moved) and made durable; its description is
   * written last. Cancelled or refused, nothing of it is kept.
   */
  async importFile(source: string, options: ImportOptions = {}): Promise<MapPackage> {
    const dir = this.folder();
    if (!existsSync(source) || !statSync(source).isFile()) throw new ServiceError('NOT_FOUND', `no file at ${source}`, 'file');
    const id = newUuid(this.now());
    const known = basename(options.fileName ?? source);
    const step = (phase: JobPhase): void => {
      if (options.signal?.aborted) throw cancelled();
      options.progress?.({ phase });
    };
    let placed: string | undefined;
    try {
      step('reading');
      const container = containerOf(source);
      const info = await this.described(source, container, options);
      const credit = creditFromHtml(info.attribution);
      const pkg: MapPackage = {
        id,
        name: (options.name?.trim() || info.name.trim() || basename(known, extname(known))).slice(0, MAX_PACKAGE_NAME),
        container,
        format: info.format,
        kind: info.format === 'pbf' ? 'vector' : 'raster',
        minZoom: info.minZoom,
        maxZoom: info.maxZoom,
        bounds: info.bounds,
        center: info.center,
        attribution: credit.text,
        attributionUrl: credit.url,
        layers: info.layers,
        schema: info.schema,
        bytes: statSync(source).size,
        importedAt: new Date(this.now()).toISOString(),
      };
      step('copying');
      placed = fileOf(dir, pkg);
      if (options.move) renameSync(source, placed);
      else await copyCounted(source, placed, { signal: options.signal, onBytes: (bytes) => options.progress?.({ bytes }), mode: PRIVATE_FILE_MODE });
      // Private, as the data folder's other files: a copy takes its source's mode (0644 from the CLI).
      chmodSync(placed, PRIVATE_FILE_MODE);
      await syncFile(placed);
      if (options.signal?.aborted) throw cancelled();
      writeDurably(sidecarOf(dir, id), JSON.stringify(pkg));
      return pkg;
    } catch (error) {
      if (placed !== undefined) rmSync(placed, { force: true });
      if (options.move) rmSync(source, { force: true });
      if (options.signal?.aborted) throw cancelled();
      if (error instanceof BadPackage) throw new ServiceError('UNSUPPORTED_FORMAT', `${known} cannot be imported: ${error.message}`, 'file');
      throw error;
    }
  }

  remove(id: string): void {
    const pkg = this.list().find((p) => p.id === id);
    if (pkg === undefined || this.dir === undefined) throw new ServiceError('NOT_FOUND', `no map package ${id}`, 'id');
    this.open.get(id)?.archive.close();
    this.open.delete(id);
    // The description goes first: from then on the package is gone, whatever happens to its file.
    rmSync(sidecarOf(this.dir, id));
    rmSync(fileOf(this.dir, pkg), { force: true });
  }

  /** A tile of a package, or null where it has none (outside its zooms or area, or an unknown package). */
  async tile(id: string, z: number, x: number, y: number): Promise<MapTile | null> {
    if (!(Number.isInteger(z) && z >= 0 && z <= 30 && Number.isInteger(x) && Number.isInteger(y))) return null;
    if (x < 0 || y < 0 || x >= 2 ** z || y >= 2 ** z) return null;
    let opened: ReturnType<MapPackages['opened']>;
    try {
      opened = this.opened(id);
    } catch (error) {
      // Imported before a check this version makes (an MBTiles whose tiles are a view): never read.
      if (error instanceof BadPackage) throw new ServiceError('UNSUPPORTED_FORMAT', `this map package cannot be read: ${error.message}. Remove it, and import a valid file`);
      throw error;
    }
    if (opened === null) return null;
    try {
      const bytes = await opened.archive.tile(z, x, y);
      return bytes === null ? null : { bytes, contentType: opened.contentType };
    } catch (error) {
      // One broken tile (too big, not inflatable, a directory the reader chokes on) is refused,
      // saying why; the others are served. The file is a stranger's: its faults are not ours.
      if (error instanceof ServiceError) throw error;
      const why = error instanceof Error ? error.message : String(error);
      throw new ServiceError('UNSUPPORTED_FORMAT', `tile ${z}/${x}/${y} of this map package cannot be served: ${why}`);
    }
  }

  close(): void {
    for (const { archive } of this.open.values()) archive.close();
    this.open.clear();
  }

  private opened(id: string): { archive: TileArchive; contentType: string } | null {
    const known = this.open.get(id);
    if (known) return known;
    const pkg = this.list().find((p) => p.id === id);
    if (pkg === undefined || this.dir === undefined) return null;
    const opened = { archive: this.archive(fileOf(this.dir, pkg), pkg.container), contentType: TILE_CONTENT_TYPES[pkg.format] };
    this.open.set(id, opened);
    return opened;
  }

  private folder(): string {
    if (this.dir === undefined) throw new ServiceError('STORAGE_UNAVAILABLE', 'map packages need a data folder (this core runs in memory)');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    return this.dir;
  }

  private archive(file: string, container: MapContainer): TileArchive {
    return openArchive(file, container, this.side.nativeBinding);
  }

  /** What the file says about itself (describe.ts): a stranger's file is read in a side process, killed when late. */
  private async described(file: string, container: MapContainer, options: ImportOptions): Promise<ArchiveInfo> {
    if (options.trusted) return describePackage(file, container, this.side.nativeBinding);
    try {
      return await runSideTask('describe-package', { file, container }, { timeoutMs: this.side.readLimitMs ?? MAX_PACKAGE_READ_MS, signal: options.signal, nativeBinding: this.side.nativeBinding, launcher: this.side.launcher });
    } catch (error) {
      if (!(error instanceof SideTaskFailed) || error.why === 'cancelled') throw error;
      throw new BadPackage(error.why === 'refused' ? error.message : `it could not be read: ${error.message}`);
    }
  }

  /**
   * Files an import cut short left behind: a package file without its description, an upload.
   * Only old ones: another process on the same folder (the CLI beside the app) may be importing.
   */
  private sweep(dir: string): void {
    const described = new Set(readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)));
    const stale = this.now() - STALE_MS;
    for (const entry of readdirSync(dir)) {
      // SQLite's companions (an upload's or a package's WAL and shared memory) go with their file.
      const base = entry.replace(/-(wal|shm|journal)$/, '');
      const id = base.replace(/\.(mbtiles|pmtiles)$/, '');
      const orphan = (id !== base && !described.has(id)) || base.endsWith('.part');
      const file = join(dir, entry);
      if (orphan && statSync(file).mtimeMs < stale) rmSync(file, { force: true });
    }
  }
}
