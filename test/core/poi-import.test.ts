import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXPORT_FORMATS, type ExportFormat } from '../../shared/exports.js';
import type { PoiReply } from '../../shared/wire.js';
import { POI_FIELDS } from '../../shared/poi-fields.js';
import { importRecords } from '../../main/core/imports/records.js';
import { MAX_RECORD_BYTES } from '../../shared/import-limits.js';
import { testCore } from '../support/core.js';

const core = testCore();
const source = core.clients.create({ name: 'Source' }).client_id;
const HOSTILE = ['=HYPERLINK("http://evil.example","click")', '+1+2', '-2+3', '@SUM(A1:A9)', 'She said "hi", then left', 'Two\nlines\r\nthree', 'Ñandú, Ávila', 'Plain'];

const text = async (client: string, format: ExportFormat): Promise<string> => {
  let out = '';
  for await (const chunk of core.exportPois(client, format)) out += chunk;
  return out;
};
const from = (s: string | Buffer): Readable => Readable.from([Buffer.from(s)]);
const all = async (client: string): Promise<PoiReply[]> => (await core.console['pois.search']({ clientId: client, filter: { total: 1000 } })) as PoiReply[];
/** A POI as it should survive a round trip: its fields and its categories by name (ids differ between clients). */
const comparable = (p: PoiReply) => ({
  ...Object.fromEntries(POI_FIELDS.map((f) => [f.reply, p[f.reply]])),
  categories: p.categories.map((c) => c.Description).sort(),
});

beforeAll(async () => {
  const own = await core.console['categories.add']({ clientId: source, desc: 'Our own; with a semicolon' });
  for (const [i, name] of HOSTILE.entries()) {
    await core.console['pois.add']({
      clientId: source,
      fields: {
        name,
        lat: 40.123456789 + i / 1000,
        lng: -3.987654321 - i / 1000,
        categories: i % 2 ? [1, 7] : [own.Id],
        desc: i === 0 ? '=1+1' : `Line one\nline "two", ${i}`,
        elevation: i === 1 ? -12.5 : null,
        accuracy: i === 2 ? 3 : null,
        city: i === 3 ? 'Ávila' : null,
        phone: '+34 900 000 000',
        geocode: false,
      },
    });
  }
});
afterAll(() => core.close());

describe('importing POIs', () => {
  for (const format of EXPORT_FORMATS) {
    it(`gives back the same POIs, exported as ${format} and imported into a new client`, async () => {
      const target = core.clients.create({ name: `Target ${format}` }).client_id;
      const exported = await text(source, format);
      const report = await core.importPois(target, from(exported), format, { createCategories: true });
      expect(report).toMatchObject({ rows: HOSTILE.length, added: HOSTILE.length, updated: 0, refused: [] });
      // Before: a CSV gave back 'Our own' and 'with a semicolon', two categories for one.
      expect(report.createdCategories).toEqual(['Our own; with a semicolon']);
      expect((await all(target)).map(comparable)).toEqual((await all(source)).map(comparable));
      for (const [i, p] of (await all(target)).entries()) {
        expect(Math.abs(p.latitude - (await all(source))[i]!.latitude)).toBeLessThan(1e-7);
        expect(Math.abs(p.longitude - (await all(source))[i]!.longitude)).toBeLessThan(1e-7);
      }
      // The same file again: every row names a POI of the target by its uuid? No: the uuids are the source's. By id? Not the target's either.
      // Exported from the target and imported back into it, nothing is duplicated.
      const again = await core.importPois(target, from(await text(target, format)), format);
      expect(again).toMatchObject({ added: 0, updated: HOSTILE.length, refused: [] });
      expect((await all(target))).toHaveLength(HOSTILE.length);
    });
  }

  it('gives back, through a CSV, category names holding ";", "|" or "\\" whole, and which POI is in which', async () => {
    const names = ['Food; drinks', 'A|B', 'back\\slash', 'plain'];
    const from_ = core.clients.create({ name: 'Separators' }).client_id;
    const ids: number[] = [];
    for (const desc of names) ids.push((await core.console['categories.add']({ clientId: from_, desc })).Id);
    const uses = [[0], [1, 2], [0, 1, 2, 3], [3], [2, 0]];
    for (const [i, of] of uses.entries()) {
      await core.console['pois.add']({ clientId: from_, fields: { name: `Uses ${i}`, lat: 40 + i / 100, lng: -3, categories: of.map((k) => ids[k]!), geocode: false } });
    }
    const csv = await text(from_, 'csv');
    // Still a list a person can read in a spreadsheet.
    expect(csv).toContain('Food\\; drinks; A\\|B; back\\\\slash; plain');
    const into = core.clients.create({ name: 'Separators imported' }).client_id;
    const report = await core.importPois(into, from(csv), 'csv', { createCategories: true });
    expect(report).toMatchObject({ rows: uses.length, added: uses.length, refused: [] });
    // Before: "Food", "drinks", "A" and "B" were created, and no POI had "Food; drinks" or "A|B".
    expect([...report.createdCategories].sort()).toEqual([...names].sort());
    const links = async (client: string) => (await all(client)).map((p) => [p.name, p.categories.map((c) => c.Description).sort()]);
    expect(await links(into)).toEqual(await links(from_));
    expect((await links(into)).find(([name]) => name === 'Uses 2')?.[1]).toEqual([...names].sort());
  });

  it('refuses bad rows one by one, with their line and the reason, and takes the others', async () => {
    const target = core.clients.create({ name: 'Bad rows' }).client_id;
    const csv = [
      'name,lat,lng,categories',
      'Good one,40.1,-3.1,7',
      'Too far north,100,-3.1,7',
      ',40.2,-3.2,7',
      'No such category,40.3,-3.3,9999',
      'Unknown name,40.4,-3.4,Not a category',
      'Not a number,north,-3.5,7',
      'Good two,40.6,-3.6,Restaurant',
    ].join('\n');
    const report = await core.importPois(target, from(csv), 'csv');
    expect(report).toMatchObject({ rows: 7, added: 2 });
    expect(report.refused.map((r) => r.where)).toEqual(['line 3', 'line 4', 'line 5', 'line 6', 'line 7']);
    // In the words of docs/admin-guide.md#the-import-report (shared/import-words.ts).
    expect(report.refused.map((r) => r.reason)).toEqual([
      'Latitude must be between -90 and 90, not 100',
      'Name is missing: every POI needs a name',
      'This client has no category with id 9999: name the category instead, or use an id it has',
      'The category “Not a category” does not exist: create it, or import with Create missing categories',
      'Latitude must be a decimal number (such as 40.25), not “north”',
    ]);
    expect((await all(target)).map((p) => p.name).sort()).toEqual(['Good one', 'Good two']);
    // Logged as this import's, so that its changes can be found together.
    const history = core.console['pois.history']({ clientId: target, poi: (await all(target))[0]!.id }) as Array<{ op: string; actor: unknown }>;
    expect(history[0]).toMatchObject({ op: 'create', actor: { kind: 'import', id: report.importId } });
  });

  it('reads numbers in decimal only: hexadecimal, binary, octal, separators and Infinity are refused by line', async () => {
    const target = core.clients.create({ name: 'Numbers' }).client_id;
    const odd = ['0x1A', '0b101', '0o17', '1_000', 'Infinity', '"41,5"'];
    const csv = ['name,lat,lng,elevation,categories', 'Decimal,-4.25e1,+2.,.5,7', ...odd.map((v, i) => `Odd ${i},40,2,${v},7`)].join('\n');
    const report = await core.importPois(target, from(csv), 'csv');
    // Before: 0x1A, 0b101 and 0o17 went in as 26, 5 and 15.
    expect(report.refused.map((r) => [r.where, r.reason])).toEqual(odd.map((v, i) => [`line ${i + 3}`, `Elevation must be a decimal number (such as 40.25), not “${v.replaceAll('"', '')}”`]));
    expect((await all(target)).map((p) => [p.latitude, p.longitude, p.elevation])).toEqual([[-42.5, 2, 0.5]]);
  });

  it("creates categories by the API's rules only, and checks all of a row's before creating any", async () => {
    const target = core.clients.create({ name: 'Category rules' }).client_id;
    const before = core.categories.list(target, true).length;
    const many = Array.from({ length: 3_000 }, (_, i) => `New ${i}`).join(';');
    const csv = ['name,lat,lng,category_names', `Too long,40,2,${'x'.repeat(101)}`, `Too many,40,2,"${many}"`, 'Fine,40,2,Kiosks;kiosks'].join('\n');
    const report = await core.importPois(target, from(csv), 'csv', { createCategories: true });
    // Before: the 101-character name was created, and all 3,000 were created before the row was refused.
    expect(report.refused.map((r) => r.where)).toEqual(['line 2', 'line 3']);
    expect(report.refused[0]!.reason).toContain('must be at most 100 characters');
    expect(report.refused[0]!.reason.length).toBeLessThan(200);
    expect(report.refused[1]!.reason).toContain('at most 50 categories');
    expect(report.createdCategories).toEqual(['Kiosks']);
    expect(core.categories.list(target, true).length).toBe(before + 1);
  });

  it('lets two imports at once that name the same new category both go in, with one category', async () => {
    const target = core.clients.create({ name: 'Two at once' }).client_id;
    // Before: one of the two answered ALREADY_EXISTS after part of its rows went in.
    const rows = (tag: string): string => ['name,lat,lng,category_names', ...Array.from({ length: 3_000 }, (_, i) => `${tag} ${i},${40 + i / 1e4},2,Shared new`)].join('\n');
    const both = await Promise.all([core.importPois(target, from(rows('A')), 'csv', { createCategories: true }), core.importPois(target, from(rows('B')), 'csv', { createCategories: true })]);
    expect(both.map((r) => [r.added, r.refused.length])).toEqual([[3_000, 0], [3_000, 0]]);
    expect(core.categories.list(target, true).filter((c) => c.Description === 'Shared new')).toHaveLength(1);
  });

  it('reads positions as lat/lng, latitude/longitude, lon and x/y; a dry run writes nothing', async () => {
    const target = core.clients.create({ name: 'Columns' }).client_id;
    const csv = 'Name,Y,X,Category_IDs,Ignored column\r\nXY,41.5,2.5,7,whatever\r\n';
    const dry = await core.importPois(target, from(`\uFEFF${csv}`), 'csv', { dryRun: true });
    expect(dry).toMatchObject({ added: 1, dryRun: true, ignoredColumns: ['Ignored column'] });
    expect((await all(target))).toEqual([]);
    await core.importPois(target, from(`\uFEFF${csv}`), 'csv');
    expect((await all(target)).map((p) => [p.name, p.latitude, p.longitude])).toEqual([['XY', 41.5, 2.5]]);
  });

  it('survives a hostile CSV: 10,000 columns, a 100 MB line, unbalanced quotes; a file damaged part-way imports nothing, saying where', async () => {
    const target = core.clients.create({ name: 'Hostile' }).client_id;
    const wide = ['name,lat,lng,categories', ...Array.from({ length: 9_996 }, (_, i) => `c${i}`)].join(',');
    const wideRow = ['Wide,40,-3,7', ...Array.from({ length: 9_996 }, () => 'x')].join(',');
    const report = await core.importPois(target, from(`${wide}\n${wideRow}\n`), 'csv');
    expect(report).toMatchObject({ added: 1, refused: [] });
    expect(report.ignoredColumns).toHaveLength(9_996);

    // As a file arrives: in 64 KiB pieces.
    const piece = Buffer.alloc(64 * 1024, 'a');
    const huge = (function* () {
      yield Buffer.from('name,lat,lng,categories\nBefore,40,-3,7\n"');
      for (let i = 0; i < 1_600; i++) yield piece;
      yield Buffer.from('",40,-3,7\nAfter,40,-3,7\n');
    })();
    const big = await core.importPois(target, Readable.from(huge), 'csv');
    // All or nothing: the row before the damage is not kept (a file of many rows: test/core/import-jobs.test.ts).
    expect(big).toMatchObject({ refused: [], failed: expect.stringMatching(/^After row 1, the file cannot be read: the CSV cannot be read past this point/) });

    const broken = await core.importPois(target, from('name,lat,lng,categories\nFine,40,-3,7\n"Unclosed,40,-3,7\n'), 'csv');
    expect(broken).toMatchObject({ failed: expect.stringMatching(/cannot be read past this point/) });
    expect((await all(target)).map((p) => p.name).sort()).toEqual(['Wide']);
  }, 60_000);

  it('refuses a file that is not GeoJSON, saying so', async () => {
    const target = core.clients.create({ name: 'Not GeoJSON' }).client_id;
    const report = await core.importPois(target, from('{"type":"Feature"}'), 'geojson');
    expect(report).toMatchObject({ refused: [], failed: 'The file cannot be read: the file is not a GeoJSON FeatureCollection' });
    const junk = await core.importPois(target, from('not json at all'), 'geojson');
    expect(junk.failed).toMatch(/not valid JSON/);
  });
  it('flags rows that look like a POI already there (or added earlier by the same import) in its report, and adds them all the same', async () => {
    const client = core.clients.create({ name: 'Twins' }).client_id;
    await core.console['pois.add']({ clientId: client, fields: { name: 'Café Plaza Mayor', lat: 40.4155, lng: -3.7074, categories: [2], geocode: false } });
    const csv = 'name,lat,lng,categories\r\ncafe plaza mayor!,40.41552,-3.70742,2\r\nFar away,41,-3,2\r\nFar away,41.00001,-3,2\r\nCafé Plaza Mayor,40.5,-3.7074,2\r\n';
    const report = await core.importPois(client, from(csv), 'csv');
    expect(report).toMatchObject({ added: 4, refused: [], duplicateCount: 2 });
    expect(report.possibleDuplicates).toEqual([
      { where: 'line 2', name: 'cafe plaza mayor!', of: expect.objectContaining({ name: 'Café Plaza Mayor', distance_m: 3 }) },
      { where: 'line 4', name: 'Far away', of: { id: null, name: 'Far away', distance_m: 1, where: 'line 3' } },
    ]);
  });
  it('looks a batch up by tile, not row by row: 2,000 rows over 3 km ask the R*Tree a few hundred times, and flag the same POIs', async () => {
    const client = core.clients.create({ name: 'Batch twins' }).client_id;
    // A grid of 50 x 40 points about 60 m apart; every 100th row has a POI 10 m north of it with a like name, some across a tile's edge (0.01 degrees).
    const at = (i: number): [number, number] => [40.3952 + Math.floor(i / 50) * 0.00055, -3.7135 + (i % 50) * 0.0007];
    for (let i = 0; i < 2_000; i += 100) {
      const [lat, lng] = at(i);
      await core.console['pois.add']({ clientId: client, fields: { name: `Kiosk number ${i}`, lat: lat + 0.00009, lng, categories: [2], geocode: false } });
    }
    const rows = Array.from({ length: 2_000 }, (_, i) => `Kiosk number ${i},${at(i).join(',')},2`);
    const asked = vi.spyOn(core.store, 'markers');
    const askedOneByOne = vi.spyOn(core.store, 'markersOneByOne');
    const report = await core.importPois(client, from(`name,lat,lng,categories\n${rows.join('\n')}\n`), 'csv');
    const queries = asked.mock.calls.length + askedOneByOne.mock.calls.length;
    asked.mockRestore();
    askedOneByOne.mockRestore();
    expect(report).toMatchObject({ added: 2_000, duplicateCount: 20 });
    expect(report.possibleDuplicates.map((d) => [d.where, d.of.name, d.of.distance_m])).toEqual(
      Array.from({ length: 20 }, (_, k) => [`line ${k * 100 + 2}`, `Kiosk number ${k * 100}`, 10]),
    );
    // Before: one query per row, 2,000.
    expect(queries).toBeLessThan(500);
  }, 60_000);
  it('streams GeoJSON: the first feature is read before the file has ended, a BOM is no obstacle, and a file that breaks off imports nothing', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const feature = (name: string) => JSON.stringify({ type: 'Feature', geometry: { type: 'Point', coordinates: [-3.7, 40.4] }, properties: { name, categories: '2' } });
    async function* slowly() {
      yield Buffer.from(`\uFEFF{"type":"FeatureCollection","features":[${feature('First')},`);
      await held;
      yield Buffer.from(`${feature('Second')}]}`);
    }
    const records = importRecords(Readable.from(slowly()), 'geojson', () => undefined);
    const first = await records.next();
    expect(first.value).toMatchObject({ where: 'feature 1', values: { name: 'First', lat: 40.4, lng: -3.7 } });
    release();
    expect((await records.next()).value).toMatchObject({ where: 'feature 2', values: { name: 'Second' } });
    expect((await records.next()).done).toBe(true);

    const target = core.clients.create({ name: 'Broken GeoJSON' }).client_id;
    const broken = await core.importPois(target, from(`{"type":"FeatureCollection","features":[${feature('Kept')},${feature('Also kept')},{"type":"Feat`), 'geojson');
    expect(broken).toMatchObject({ refused: [], failed: expect.stringMatching(/^After row 2, the file cannot be read: the file is not valid JSON/) });
    expect(await all(target)).toEqual([]);
  });

  it('skips rows identical to a POI already there or to an earlier row, so importing a file twice adds nothing; asked to, adds them', async () => {
    const client = core.clients.create({ name: 'Twice' }).client_id;
    const csv = 'name,lat,lng,categories,phone\nKiosk,40.1,-3.1,2,+34 1\nKIOSK,40.1000001,-3.1,2,+34 1\nBench,40.2,-3.2,2,\n';
    const first = await core.importPois(client, from(csv), 'csv');
    // Line 3 repeats line 2 (the name folded, 1 cm away, the same fields).
    expect(first).toMatchObject({ added: 2, identicalCount: 1, identical: [{ where: 'line 3', name: 'KIOSK', of: { id: null, where: 'line 2' } }] });
    const again = await core.importPois(client, from(csv), 'csv');
    expect(again).toMatchObject({ added: 0, identicalCount: 3, refused: [] });
    expect(again.identical.map((d) => d.of.id)).toEqual([expect.any(Number), expect.any(Number), expect.any(Number)]);
    const check = await core.importPois(client, from(csv), 'csv', { dryRun: true });
    expect(check).toMatchObject({ added: 0, identicalCount: 3 });
    // Another phone is another POI (flagged as a possible duplicate, added); asked to, identical rows go in.
    const changed = await core.importPois(client, from('name,lat,lng,categories,phone\nKiosk,40.1,-3.1,2,+34 2\n'), 'csv');
    expect(changed).toMatchObject({ added: 1, identicalCount: 0, duplicateCount: 1 });
    const forced = await core.importPois(client, from(csv), 'csv', { addIdentical: true });
    expect(forced).toMatchObject({ added: 3, identicalCount: 0 });
    expect((await all(client)).length).toBe(6);
  });

  it('checks 1,000 long names at one point giving other work its turns, each row compared with a bounded number of others', async () => {
    const client = core.clients.create({ name: 'Dense' }).client_id;
    // Unlike each other, so every row is compared with all it may be (the worst case), none found similar.
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const name = (i: number): string => {
      // xorshift32, seeded by the row: the same names at every run.
      let seed = (i + 1) * 2_654_435_761;
      const next = (): number => {
        seed ^= seed << 13;
        seed ^= seed >>> 17;
        seed ^= seed << 5;
        return (seed >>> 0) % 26;
      };
      return Array.from({ length: 255 }, () => letters[next()]).join('');
    };
    const rows = Array.from({ length: 1_000 }, (_, i) => `"${name(i)}",40.4,-3.7,2`);
    let turns = 0;
    const probe = setInterval(() => turns++, 0);
    const report = await core.importPois(client, from(`name,lat,lng,categories\n${rows.join('\n')}\n`), 'csv', { dryRun: true });
    clearInterval(probe);
    expect(report).toMatchObject({ rows: 1_000, added: 1_000, refused: [] });
    expect(report.duplicateCount).toBe(0);
    // Before: the whole batch of 1,000 in one turn, no timer ran until it ended.
    expect(turns).toBeGreaterThan(10);
  });

  it('skips identical rows however many POIs stand at that point: 3,000 rows at one point imported twice add nothing the second time', async () => {
    const client = core.clients.create({ name: 'Dense twice' }).client_id;
    const csv = `name,lat,lng,categories\n${Array.from({ length: 3_000 }, (_, i) => `Stop ${i},40.5,-3.5,2`).join('\n')}\n`;
    expect(await core.importPois(client, from(csv), 'csv')).toMatchObject({ added: 3_000, identicalCount: 0 });
    // Before: the 1 m box query returned the newest 1,000 POIs there, and 2,000 rows went in again.
    expect(await core.importPois(client, from(csv), 'csv')).toMatchObject({ added: 0, identicalCount: 3_000 });
    expect(await core.importPois(client, from(csv), 'csv', { dryRun: true })).toMatchObject({ added: 0, identicalCount: 3_000 });
  }, 60_000);

  it('counts every refused row, though it lists the first 1,000', async () => {
    const client = core.clients.create({ name: 'Many refused' }).client_id;
    const rows = Array.from({ length: 1_005 }, (_, i) => `Bad ${i},91,-3,2`);
    const report = await core.importPois(client, from(`name,lat,lng,categories\n${rows.join('\n')}\n`), 'csv');
    // Before: the UI counted the list, 1,001 with its "and more" entry.
    expect(report).toMatchObject({ refusedCount: 1_005, added: 0 });
    expect(report.refused).toHaveLength(1_001);
    expect(report.refused.at(-1)).toEqual({ where: 'and more', reason: '5 more rows refused' });
  });

  it('bounds a CSV record, not only a cell: at MAX_RECORD_BYTES it is read, one byte over it fails the import', async () => {
    const client = core.clients.create({ name: 'Record bound' }).client_id;
    // "Row,-3,40,2," then a quoted cell: 12 + 2 + n bytes, the line break apart.
    const record = (bytes: number): string => `Row,40,-3,2,"${'x'.repeat(bytes - 14)}"`;
    const at = await core.importPois(client, from(`name,lat,lng,categories,desc\n${record(MAX_RECORD_BYTES)}\nAfter,40,-3,2,\n`), 'csv');
    // Read, and refused for its description alone (over 1,024 characters); the next row goes in.
    expect(at).toMatchObject({ failed: null, added: 1, refusedCount: 1 });
    const over = await core.importPois(client, from(`name,lat,lng,categories,desc\n${record(MAX_RECORD_BYTES + 1)}\nAfter,40,-3,2,\n`), 'csv');
    expect(over.failed).toMatch(/a record holds more than 1,000,000 bytes \(MAX_RECORD_BYTES\)/);
    // Before: three cells of 400,000 bytes each passed the parser's per-cell bound, held whole.
    const cells = `"${'y'.repeat(400_000)}"`;
    const wide = await core.importPois(client, from(`name,lat,lng,categories,desc,a,b\nWide,40,-3,2,${cells},${cells},${cells}\n`), 'csv');
    expect(wide.failed).toMatch(/MAX_RECORD_BYTES/);
  }, 60_000);
});
