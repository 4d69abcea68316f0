import type { MapContainer, TileFormat, VectorSchema } from '../../../shared/maps.js';

/** What a package file says about itself, read once at import. */
export interface ArchiveInfo {
  container: MapContainer;
  format: TileFormat;
  name: string;
  minZoom: number;
  maxZoom: number;
  bounds: [number, number, number, number];
  center: [number, number, number];
  /** The credit as the file gives it (often HTML). */
  attribution: string;
  layers: string[];
  schema: VectorSchema;
}

/** One open package file. Tiles are read from it in place, never unpacked. */
export interface TileArchive {
  info(): Promise<ArchiveInfo>;
  /** The tile's bytes (vector tiles inflated), or null where the package has none. */
  tile(z: number, x: number, y: number): Promise<Uint8Array | null>;
  close(): void;
}

/** Why a file cannot be a map package; the import refuses it and keeps nothing. */
export class BadPackage extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadPackage';
  }
}

/** Degrees of the tile range [x0..x1] × [y0..y1] at zoom z (XYZ rows). */
export function tileRangeBounds(z: number, x0: number, x1: number, y0: number, y1: number): [number, number, number, number] {
  const n = 2 ** z;
  const lng = (x: number): number => (x / n) * 360 - 180;
  const lat = (y: number): number => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / n))) * 180) / Math.PI;
  return [lng(x0), lat(y1 + 1), lng(x1 + 1), lat(y0)];
}
