import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { Compression, PMTiles, SharedPromiseCache, TileType, type DecompressFunc, type RangeResponse, type Source } from 'pmtiles';
import { MAX_DIRECTORY_BYTES, MAX_INFLATED_TILE_BYTES, MAX_TILE_BYTES, vectorSchema, type TileFormat } from '../../../shared/maps.js';
import { BadPackage, type ArchiveInfo, type TileArchive } from './archive.js';
import { gunzipAtMostOffLoop, vectorLayers } from './tile-bytes.js';

const FORMATS: Partial<Record<TileType, TileFormat>> = {
  [TileType.Mvt]: 'pbf',
  [TileType.Png]: 'png',
  [TileType.Jpeg]: 'jpg',
  [TileType.Webp]: 'webp',
};

/** Directories the reader keeps decoded (each package). */
const DIRECTORIES_KEPT = 8;

const UNREAD: Partial<Record<Compression, string>> = { [Compression.Brotli]: 'Brotli', [Compression.Zstd]: 'Zstandard' };

/**
 * Decompression for the `pmtiles` reader, bounded: its own inflates all that a gzip holds, in
 * memory, before anything is checked, and a few KiB of a stranger's file can hold gigabytes.
 */
function inflater(limit: number, noun: string): DecompressFunc {
  return async (stored, compression) => {
    if (compression === Compression.None || compression === Compression.Unknown) return stored;
    if (compression !== Compression.Gzip) {
      throw new BadPackage(`a ${noun} is compressed with ${UNREAD[compression] ?? `method ${compression}`}, which the map does not read (only gzip or none)`);
    }
    // A copy: the inflated Buffer may be a view of a larger one, and the reader takes the whole ArrayBuffer.
    return new Uint8Array(await gunzipAtMostOffLoop(new Uint8Array(stored), limit, noun)).buffer;
  };
}

/** The archive's bytes from a file descriptor: the `pmtiles` reader asks for ranges. */
class FileRanges implements Source {
  readonly size: number;

  constructor(
    private readonly fd: number,
    private readonly key: string,
  ) {
    this.size = fstatSync(fd).size;
  }

  getKey(): string {
    return this.key;
  }

  async getBytes(offset: number, length: number): Promise<RangeResponse> {
    // The reader asks for the first 16 KiB whatever the file's size.
    const wanted = Math.max(0, Math.min(length, this.size - offset));
    // The length comes from the file: a directory entry can claim a tile of gigabytes, read whole.
    if (wanted > MAX_TILE_BYTES) {
      throw new BadPackage(`one of its tiles or directories is ${(wanted / 1024 ** 2).toFixed(0)} MiB, over the ${MAX_TILE_BYTES / 1024 ** 2} MiB a tile may hold`);
    }
    const data = new Uint8Array(wanted);
    let read = 0;
    while (read < wanted) {
      const n = readSync(this.fd, data, read, wanted - read, offset + read);
      if (n === 0) break;
      read += n;
    }
    return { data: data.buffer };
  }
}

/** A PMTiles v3 archive (https://github.com/protomaps/PMTiles), read with the `pmtiles` package. */
export class PmtilesArchive implements TileArchive {
  private readonly fd: number;
  private readonly ranges: FileRanges;
  private readonly reader: PMTiles;

  constructor(file: string) {
    this.fd = openSync(file, 'r');
    this.ranges = new FileRanges(this.fd, file);
    // The reader inflates tiles and metadata itself, but directories through its cache: both are
    // given a bounded inflater, or the cache would use the reader's unbounded default.
    // Few directories kept: one of MAX_DIRECTORY_BYTES is some 66 MiB as objects, and the
    // library's default of 100 would let a crafted archive hold gigabytes while the map is panned.
    const directories = new SharedPromiseCache(DIRECTORIES_KEPT, undefined, inflater(MAX_DIRECTORY_BYTES, 'tile directory'));
    this.reader = new PMTiles(this.ranges, directories, inflater(MAX_INFLATED_TILE_BYTES, 'tile'));
  }

  async info(): Promise<ArchiveInfo> {
    const header = await this.reader.getHeader().catch((error: unknown) => {
      if (error instanceof BadPackage) throw error;
      throw new BadPackage(`not a PMTiles archive: ${(error as Error).message}`);
    });
    // A file cut short reads as an archive whose missing tiles are blank: every section the header
    // places must lie within the file, or it is refused.
    const sections: Array<[string, number, number | undefined]> = [
      ['root directory', header.rootDirectoryOffset, header.rootDirectoryLength],
      ['metadata', header.jsonMetadataOffset, header.jsonMetadataLength],
      ['leaf directories', header.leafDirectoryOffset, header.leafDirectoryLength],
      ['tile data', header.tileDataOffset, header.tileDataLength],
    ];
    for (const [what, offset, length] of sections) {
      const end = offset + (length ?? 0);
      if (!Number.isSafeInteger(end) || end > this.ranges.size) {
        throw new BadPackage(`the archive is cut short or damaged: its ${what} would end at byte ${end}, but the file has ${this.ranges.size} bytes`);
      }
    }
    const format = FORMATS[header.tileType];
    if (format === undefined) throw new BadPackage(`its tiles are of a kind the map cannot draw (PMTiles tile type ${header.tileType})`);
    // Optional, as it is to other readers: metadata that cannot be read (broken, or inflating past
    // the limit, having been stopped there) is done without.
    const metadata: unknown = await this.reader.getMetadata().catch(() => ({}));
    const field = (key: string): unknown => (typeof metadata === 'object' && metadata !== null && key in metadata ? (metadata as Record<string, unknown>)[key] : undefined);
    const layers = format === 'pbf' ? await this.layers(field('vector_layers'), header.maxZoom, header.centerLon, header.centerLat) : [];
    if (header.numAddressedTiles === 0) throw new BadPackage('the PMTiles archive holds no tiles');
    return {
      container: 'pmtiles',
      format,
      name: typeof field('name') === 'string' ? String(field('name')) : '',
      minZoom: header.minZoom,
      maxZoom: header.maxZoom,
      bounds: [header.minLon, header.minLat, header.maxLon, header.maxLat],
      center: [header.centerLon, header.centerLat, header.centerZoom],
      attribution: typeof field('attribution') === 'string' ? String(field('attribution')) : '',
      layers,
      schema: vectorSchema(layers),
    };
  }

  async tile(z: number, x: number, y: number): Promise<Uint8Array | null> {
    const found = await this.reader.getZxy(z, x, y);
    return found && found.data.byteLength > 0 ? new Uint8Array(found.data) : null;
  }

  close(): void {
    closeSync(this.fd);
  }

  private async layers(listed: unknown, zoom: number, lng: number, lat: number): Promise<string[]> {
    if (Array.isArray(listed)) {
      const ids = listed.map((l: unknown) => (typeof l === 'object' && l !== null && 'id' in l ? String(l.id) : ''));
      if (ids.length > 0 && ids.every((id) => id !== '')) return ids;
    }
    // No list in the metadata: the tile at the archive's centre says which layers it has.
    const n = 2 ** zoom;
    const x = Math.min(n - 1, Math.floor(((lng + 180) / 360) * n));
    const rad = (lat * Math.PI) / 180;
    const y = Math.min(n - 1, Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n));
    const sample = await this.tile(zoom, x, y);
    if (sample === null) return [];
    try {
      return vectorLayers(sample);
    } catch (error) {
      throw new BadPackage(`its vector tiles cannot be read: ${(error as Error).message}`);
    }
  }
}
