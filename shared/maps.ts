/**
 * Offline map packages: MBTiles and PMTiles files imported into the data folder and drawn under
 * the POIs. The main process reads them; the page only ever sees this description and tiles by
 * z/x/y, whatever the container.
 */

export const MAP_CONTAINERS = ['mbtiles', 'pmtiles'] as const;
export type MapContainer = (typeof MAP_CONTAINERS)[number];

/** What a tile holds. `pbf` is a Mapbox Vector Tile; the others are images. */
export const TILE_FORMATS = ['png', 'jpg', 'webp', 'pbf'] as const;
export type TileFormat = (typeof TILE_FORMATS)[number];

export const TILE_CONTENT_TYPES = {
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  pbf: 'application/vnd.mapbox-vector-tile',
} as const satisfies Record<TileFormat, string>;

/**
 * Vector tile schemas the map has paint and label rules for; anything else is drawn with a
 * plain style for whatever layers the tiles hold.
 */
export const VECTOR_SCHEMAS = ['openmaptiles', 'protomaps', 'mapbox-streets', 'other'] as const;
export type VectorSchema = (typeof VECTOR_SCHEMAS)[number];

export interface MapPackage {
  /** Also the file's name in the data folder's maps/ (without extension). */
  id: string;
  name: string;
  container: MapContainer;
  format: TileFormat;
  kind: 'raster' | 'vector';
  minZoom: number;
  maxZoom: number;
  /** [west, south, east, north] in degrees. */
  bounds: [number, number, number, number];
  /** Where the package suggests opening: [lng, lat, zoom]. */
  center: [number, number, number];
  /** The provider's credit, as text (markup removed) and an optional link. */
  attribution: string;
  attributionUrl: string;
  /** Vector packages: the layers the tiles hold, and the schema they follow. */
  layers: string[];
  schema: VectorSchema;
  bytes: number;
  importedAt: string;
}

/** Several packages can be drawn at once, in list order, over the bundled overview. */
export const MAX_PACKAGE_BYTES = 8 * 1024 ** 3;
export const MAX_PACKAGE_NAME = 100;
/**
 * The most one tile of a package may hold as stored, and once inflated (a gzipped vector tile):
 * real tiles hold a few hundred KiB; a package whose tile is bigger is refused, not read whole
 * (a 2 MB file's tile could inflate to 1 GiB).
 */
export const MAX_TILE_BYTES = 8 * 1024 ** 2;
export const MAX_INFLATED_TILE_BYTES = 32 * 1024 ** 2;
/**
 * The most a PMTiles directory (where in the file each tile lies) may hold once inflated. Its
 * header declares a compressed size, and a few KiB of gzip can inflate to gigabytes. Writers size
 * leaf directories so that the root, listing them, fits in the file's first 16 KiB: some thousands
 * of leaves, each of a few bytes per tile. Even a package of MAX_PACKAGE_BYTES in tiles of 100
 * bytes then has leaves of a few hundred KiB, so 4 MiB refuses no real archive.
 */
export const MAX_DIRECTORY_BYTES = 4 * 1024 ** 2;

/** Which schema a set of vector layers follows: by layers only that schema names. */
export function vectorSchema(layers: readonly string[]): VectorSchema {
  const has = (name: string): boolean => layers.includes(name);
  if (has('transportation') || has('transportation_name')) return 'openmaptiles';
  if (has('roads') && has('earth')) return 'protomaps';
  if (has('road') || has('road_label')) return 'mapbox-streets';
  return 'other';
}
