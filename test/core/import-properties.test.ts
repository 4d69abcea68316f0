import fc from 'fast-check';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../shared/import-limits.js';
import { FRAGMENTS } from '../support/arbitraries.js';
import { testCore } from '../support/core.js';

/**
 * Hostile files, generated (fast-check): whatever a CSV or GeoJSON file holds, the import does
 * not throw, reads every record, and each is either imported exactly (its text as written, its
 * numbers as the decimal they spell) or refused with where it is, nothing in between. The
 * export's round trip is test/core/poi-export.test.ts's.
 */
const core = testCore();
afterAll(() => core.close());

/** What a row's cell may hold: the odd, the hostile, and the plainly valid. */
const TRICKY_NUMBERS = ['0x1A', '0b101', '1_000', 'Infinity', '-Infinity', 'NaN', '1e999', '', ' ', '+5', '.5', '5.', '1,5', '٤٠', '４０', '40\u00a0', ' 12 ', '1e-400', '-0', '00040', '1.0E1'];
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

const coordinate = (limit: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.double({ min: -limit * 1.2, max: limit * 1.2, noNaN: true }).map(String),
    fc.integer({ min: -limit - 5, max: limit + 5 }).map(String),
    fc.constantFrom(...TRICKY_NUMBERS),
  );
const text = fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom('=1+1', '-5 degrees', "'quoted", '@cmd', 'a,b', 'say "hi"', 'two\nlines', 'cr\rhere', ' '.repeat(3), 'x'.repeat(256)));

interface Row {
  name: string;
  lat: string;
  lng: string;
  desc: string;
}
const row = fc.record({ name: text, lat: coordinate(90), lng: coordinate(180), desc: text });

/** What a number cell must give: a decimal in range, else the row is refused. */
const decimal = (cell: string, limit: number): number | undefined => {
  const t = cell.trim();
  if (!DECIMAL.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) && Math.abs(n) <= limit ? n : undefined;
};
/** Text as it reaches the importer: UTF-8 on the way, so a lone surrogate arrives as U+FFFD. */
const asSent = (s: string): string => Buffer.from(s).toString();
const codePoints = (s: string): number => [...s].length;

/** Whether a row must go in, and as what. */
function expected(r: Row): { name: string; lat: number; lng: number; desc: string | null } | undefined {
  const name = asSent(r.name);
  const desc = asSent(r.desc);
  const lat = decimal(r.lat, 90);
  const lng = decimal(r.lng, 180);
  if (name.trim() === '' || codePoints(name) > 255 || codePoints(desc) > 1024 || lat === undefined || lng === undefined) return undefined;
  return { name, lat, lng, desc: desc === '' ? null : desc };
}

const quote = (cell: string): string => `"${cell.replace(/"/g, '""')}"`;

describe('importing hostile files', () => {
  it('a CSV: every record is imported exactly or refused with its line, and the import never throws', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 25 }), fc.constantFrom('\n', '\r\n'), async (rows, eol) => {
        const clientId = core.clients.create({ name: `CSV ${run++}` }).client_id;
        const body = ['name,lat,lng,desc,categories', ...rows.map((r) => [r.name, r.lat, r.lng, r.desc].map(quote).join(',') + ',7')].join(eol) + eol;
        const report = await core.importPois(clientId, Readable.from([Buffer.from(body)]), 'csv', { addIdentical: true });
        expect(report.failed).toBeNull();
        expect(report.rows).toBe(rows.length);
        const wanted = rows.map(expected);
        expect(report.added).toBe(wanted.filter(Boolean).length);
        expect(report.refused).toHaveLength(wanted.filter((w) => w === undefined).length);
        for (const refusal of report.refused) expect(refusal.where).toMatch(/^line \d+$/);
        // In words (shared/import-words.ts): a sentence naming the field as the form labels it, never the validator's.
        for (const refusal of report.refused) expect(refusal.reason).toMatch(/^(Name|Latitude|Longitude|Description) [^]*[a-z0-9”]$/);
        for (const refusal of report.refused) expect(refusal.reason).not.toMatch(/Invalid input|expected \w+, received/);
        const stored = core.db.prepare('SELECT name, lat, lng, description AS desc FROM pois WHERE client_id = ?').all(clientId);
        const sort = (list: unknown[]) => list.map((x) => JSON.stringify(x)).sort();
        expect(sort(stored)).toEqual(sort(wanted.filter(Boolean)));
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  /** A JSON value nested `depth` levels (objects and arrays taking turns), a string at the bottom. */
  const nested = (depth: number, leaf: string): unknown => {
    let value: unknown = leaf;
    for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { v: value };
    return value;
  };

  it('a GeoJSON: every feature is imported or refused with its number, too deep ones by the depth limit, and the import never throws', async () => {
    let run = 0;
    const feature = fc.record({
      name: text,
      depth: fc.integer({ min: 0, max: MAX_JSON_DEPTH + 3 }),
      position: fc.oneof(fc.tuple(fc.double({ min: -200, max: 200, noNaN: true }), fc.double({ min: -100, max: 100, noNaN: true })), fc.constant(null)),
      extra: fc.jsonValue({ maxDepth: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(feature, { minLength: 1, maxLength: 15 }), async (features) => {
        const clientId = core.clients.create({ name: `GeoJSON ${run++}` }).client_id;
        const collection = {
          type: 'FeatureCollection',
          features: features.map((f) => ({
            type: 'Feature',
            geometry: f.position ? { type: 'Point', coordinates: f.position } : null,
            // The feature is 1, properties 2, `extra` 3, then the nesting: depth + 2 levels in all.
            properties: { name: f.name, categories: '7', extra: nested(f.depth, 'leaf'), other: f.extra },
          })),
        };
        const report = await core.importPois(clientId, Readable.from([Buffer.from(JSON.stringify(collection))]), 'geojson', { addIdentical: true });
        expect(report.failed).toBeNull();
        expect(report.rows).toBe(features.length);
        expect(report.added + report.refused.length).toBe(features.length);
        for (const refusal of report.refused) expect(refusal.reason).toMatch(/^[A-Z“]/);
        for (const refusal of report.refused) expect(refusal.reason).not.toMatch(/Invalid input|expected \w+, received/);
        features.forEach((f, i) => {
          const refusal = report.refused.find((r) => r.where === `feature ${i + 1}`);
          // `other` (a JSON value) adds up to 3 levels of its own.
          if (f.depth + 2 > MAX_JSON_DEPTH) expect(refusal?.reason).toMatch(/MAX_JSON_DEPTH/);
          if (f.position === null) expect(refusal).toBeDefined();
        });
        const names = core.db.prepare<[string], string>('SELECT name FROM pois WHERE client_id = ?').pluck().all(clientId);
        for (const name of names) expect(features.map((f) => f.name)).toContain(name);
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
