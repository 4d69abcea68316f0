import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { writeMbtiles, type TileEntry } from './map-package-writer.js';

const root = join(import.meta.dirname, '..', '..');

/** Where the build puts the sample city (packaged with dist/). */
const SAMPLE_MAP_FILE = join(root, 'dist', 'sample-map', 'san-francisco.mbtiles');

/**
 * The sample street-level package a new user sees offline on the first start: San Francisco's
 * 3 × 3 real-world vector tiles at zoom 15 (Mapbox Streets v7, OpenStreetMap data under the
 * ODbL) that ship in the npm package @mapbox/mvt-fixtures, as an MBTiles file. The map draws
 * them overzoomed up to zoom 20. The ODbL's text goes beside it.
 */
export function buildSampleMap(file = SAMPLE_MAP_FILE): void {
  const fixtures = dirname(createRequire(import.meta.url).resolve('@mapbox/mvt-fixtures/package.json'));
  const folder = join(fixtures, 'real-world', 'sanfrancisco');
  const tiles: TileEntry[] = readdirSync(folder)
    .filter((f) => f.endsWith('.mvt'))
    .map((f) => {
      const [z, x, y] = f.replace('.mvt', '').split('-').map(Number);
      return { z: z!, x: x!, y: y!, data: readFileSync(join(folder, f)) };
    });
  mkdirSync(dirname(file), { recursive: true });
  const part = `${file}.${process.pid}.part`;
  rmSync(part, { force: true });
  writeMbtiles(part, {
    format: 'pbf',
    name: 'San Francisco (sample)',
    attribution: '<a href="https://www.openstreetmap.org/copyright">© OpenStreetMap contributors (ODbL)</a>, Mapbox Streets v7 tiles from @mapbox/mvt-fixtures',
    tiles,
  });
  renameSync(part, file);
  copyFileSync(join(fixtures, 'LICENSE-ODbL-1.0.md'), join(dirname(file), 'LICENSE-ODbL-1.0.md'));
}

/** The sample's file: built on a fresh clone (as the UI is), where the package it comes from is installed. */
export function sampleMap(): string | undefined {
  if (existsSync(SAMPLE_MAP_FILE)) return SAMPLE_MAP_FILE;
  try {
    buildSampleMap();
    return SAMPLE_MAP_FILE;
  } catch {
    // A packaged app always has it; a checkout without dev dependencies goes without.
    return undefined;
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) buildSampleMap();
