import type { MapContainer } from '../../../shared/maps.js';
import { ServiceError } from '../errors.js';
import { BadPackage, type ArchiveInfo, type TileArchive } from './archive.js';
import { MbtilesArchive } from './mbtiles.js';
import { PmtilesArchive } from './pmtiles.js';

/** A package file opened for reading, by its container. */
export const openArchive = (file: string, container: MapContainer, nativeBinding: string | undefined): TileArchive =>
  container === 'mbtiles' ? new MbtilesArchive(file, nativeBinding) : new PmtilesArchive(file);

/**
 * What the file says about itself and one tile, so that a file that cannot be drawn is refused
 * at import. Run in a side process on a file being imported (packages.ts): this is where a
 * stranger's file is first read.
 */
export async function describePackage(file: string, container: MapContainer, nativeBinding: string | undefined): Promise<ArchiveInfo> {
  let archive: TileArchive | undefined;
  try {
    archive = openArchive(file, container, nativeBinding);
    const info = await archive.info();
    const [lng, lat] = info.center;
    if (!(info.minZoom <= info.maxZoom && info.maxZoom <= 30 && Number.isFinite(lng) && Number.isFinite(lat))) {
      throw new BadPackage(`its zoom levels (${info.minZoom}-${info.maxZoom}) or centre make no sense`);
    }
    return info;
  } catch (error) {
    if (error instanceof BadPackage || error instanceof ServiceError) throw error;
    throw new BadPackage(`it cannot be read (${(error as Error).message})`);
  } finally {
    archive?.close();
  }
}
