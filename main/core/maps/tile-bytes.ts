import { VectorTile } from '@mapbox/vector-tile';
import Pbf from 'pbf';
import { promisify } from 'node:util';
import { gunzip, gunzipSync } from 'node:zlib';
import { MAX_INFLATED_TILE_BYTES, type TileFormat } from '../../../shared/maps.js';
import { BadPackage } from './archive.js';

const startsWith = (bytes: Uint8Array, ...prefix: number[]): boolean => prefix.every((b, i) => bytes[i] === b);

const isGzip = (bytes: Uint8Array): boolean => startsWith(bytes, 0x1f, 0x8b);

/**
 * Gzipped bytes inflated, refused once they pass `limit`: a package is a stranger's file, and a few
 * KiB of gzip can inflate to gigabytes. `noun` names what they are in the refusal.
 */
export function gunzipAtMost(bytes: Uint8Array, limit: number, noun: string): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: limit });
  } catch (error) {
    throw inflateRefusal(error, limit, noun);
  }
}

const gunzipAsync = promisify(gunzip);

/**
 * The same, inflated on libuv's thread pool: tiles are inflated while the app serves (the map's
 * tile route, the street geocoder), and a tile of a stranger's package that inflates to tens of
 * MiB would hold the event loop for the whole inflate (tens of milliseconds).
 */
export async function gunzipAtMostOffLoop(bytes: Uint8Array, limit: number, noun: string): Promise<Buffer> {
  try {
    return await gunzipAsync(bytes, { maxOutputLength: limit });
  } catch (error) {
    throw inflateRefusal(error, limit, noun);
  }
}

function inflateRefusal(error: unknown, limit: number, noun: string): BadPackage {
  if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return new BadPackage(`a ${noun} inflates to more than ${limit / 1024 ** 2} MiB, the most a ${noun} may hold`);
  return new BadPackage(`a gzipped ${noun} cannot be inflated: ${(error as Error).message}`);
}

/** A vector tile as the page parses it: MBTiles often stores them gzipped, PMTiles' reader already inflated them. */
export function inflated(bytes: Uint8Array): Uint8Array {
  return isGzip(bytes) ? gunzipAtMost(bytes, MAX_INFLATED_TILE_BYTES, 'tile') : bytes;
}

/** The same, off the event loop (gunzipAtMostOffLoop), for tiles read while the app serves. */
export async function inflatedOffLoop(bytes: Uint8Array): Promise<Uint8Array> {
  return isGzip(bytes) ? gunzipAtMostOffLoop(bytes, MAX_INFLATED_TILE_BYTES, 'tile') : bytes;
}

/** What a tile holds, from its first bytes (MBTiles' `format` is optional and sometimes wrong). */
export function sniffTileFormat(bytes: Uint8Array): TileFormat | null {
  if (startsWith(bytes, 0x89, 0x50, 0x4e, 0x47)) return 'png';
  if (startsWith(bytes, 0xff, 0xd8, 0xff)) return 'jpg';
  if (startsWith(bytes, 0x52, 0x49, 0x46, 0x46) && startsWith(bytes.subarray(8), 0x57, 0x45, 0x42, 0x50)) return 'webp';
  if (isGzip(bytes)) return 'pbf';
  // A vector tile is a list of layers: protobuf field 3, length-delimited.
  if (bytes[0] === 0x1a) return 'pbf';
  return null;
}

/** The layers a vector tile holds, or an error naming why it cannot be read. */
export function vectorLayers(bytes: Uint8Array): string[] {
  return Object.keys(new VectorTile(new Pbf(inflated(bytes))).layers);
}
