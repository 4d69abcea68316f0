import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../../main/core/exports/poi-export.js';
import { dispatch } from '../../main/core/console/dispatch.js';
import { CSV_FLAVOURS, type CsvFlavour } from '../../shared/file-formats.js';
import { FORMULA_GUARD_COLUMN } from '../../shared/import-columns.js';
import type { PoiReply } from '../../shared/wire.js';
import { testCore } from '../support/core.js';

/**
 * The CSV export as programs other than this app read it: an RFC 4180 reader that is not the app's
 * own (Python's csv module), and LibreOffice Calc opening the file headless; the CSV for a
 * spreadsheet and the one for programs. Then a property: any text exported and imported again comes
 * back exactly, from either.
 */
const core = testCore();
const clientId = core.clients.create({ name: 'Readers' }).client_id;

/** Cells that break a naive CSV, or that a spreadsheet would run. */
const NAMES = [
  "Cafe\n=cmd|' /C calc'!A0",
  'Two\rcarriage\r\nreturns',
  '=1+1',
  ' =2+2',
  "'-5 degrees",
  "'=1+1",
  "It's fine",
  'She said "hi", then left',
  '-',
  'Plain',
];

const exported = async (client = clientId, csvFlavour: CsvFlavour = 'spreadsheet'): Promise<string> => {
  let out = '';
  for await (const chunk of core.exportPois(client, 'csv', { csvFlavour })) out += chunk;
  return out;
};
/** The records of a CSV file as Python's csv module reads it, in the encoding given. */
const python = (file: string, encoding: string): string[][] => {
  const read = spawnSync('python3', ['-c', "import csv, json, sys\nwith open(sys.argv[1], newline='', encoding=sys.argv[2]) as f: print(json.dumps(list(csv.reader(f))))", file, encoding], { encoding: 'utf8' });
  expect(read.status, read.stderr).toBe(0);
  return JSON.parse(read.stdout) as string[][];
};
/** What a spreadsheet would run: a formula character first, after any spaces, in a cell that is not a number. */
const live = (cell: string): boolean => /^\s*[=+\-@]/.test(cell) && Number.isNaN(Number(cell));

let clients = 0;
const dir = mkdtempSync(join(tmpdir(), 'poi-csv-readers-'));
beforeAll(async () => {
  for (const [i, name] of NAMES.entries()) await core.console['pois.add']({ clientId, fields: { name, lat: 40 + i / 100, lng: -3 - i / 100, categories: [1], desc: i % 2 ? 'one\ntwo' : null } });
});
afterAll(() => {
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the CSV export read by other programs', () => {
  it("is read by an RFC 4180 reader that is not the app's own record for record, with no cell a spreadsheet would run", async () => {
    const file = join(dir, 'python.csv');
    writeFileSync(file, await exported());
    const rows = python(file, 'utf-8-sig');
    // Before: a bare line feed inside a name went out unquoted; the record split in two, and its
    // second line began with a live =cmd formula.
    expect(rows).toHaveLength(1 + NAMES.length);
    expect(rows[0]).toEqual([...CSV_COLUMNS, FORMULA_GUARD_COLUMN]);
    for (const row of rows.slice(1)) {
      expect(row).toHaveLength(CSV_COLUMNS.length + 1);
      for (const cell of row) expect(live(cell), cell).toBe(false);
    }
  });

  it('writes a CSV for programs that an RFC 4180 reader reads value for value: no byte-order mark, no apostrophe added, every cell as the API replies it', async () => {
    const file = join(dir, 'plain.csv');
    writeFileSync(file, await exported(clientId, 'plain'));
    // Read as plain UTF-8: a byte-order mark would be part of the first column's name.
    const rows = python(file, 'utf-8');
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    const replies = ((await core.console['pois.search']({ clientId, filter: { total: 1000 } })) as PoiReply[]).sort((a, b) => a.id - b.id);
    const cells = (p: PoiReply): string[] => {
      const value = new Map(Object.entries(p));
      return CSV_COLUMNS.map((column) => {
        if (column === 'categories') return p.categories.map((c) => c.Id).join(';');
        if (column === 'category_names') return p.categories.map((c) => c.Description.replace(/[\\;|]/g, '\\$&')).join('; ');
        const v = value.get(column);
        return v === null || v === undefined ? '' : String(v);
      });
    };
    // Before: there was no such file; the one export put an apostrophe before "=1+1", " =2+2", "-", "'-5 degrees"...
    expect(rows.slice(1)).toEqual(replies.map(cells));
    expect(rows.slice(1).map((r) => r[2])).toEqual(NAMES);
  });

  it("takes a program's CSV as it is: an apostrophe in front of a cell is the cell's own", async () => {
    const into = core.clients.create({ name: 'Plain file' }).client_id;
    const csv = ['name,lat,lng,categories,desc', "'-5 degrees,40,-3,1,'=1+1", `"'=SUM(A1)",40.1,-3,1,'@home`, "'plain,40.2,-3,1,it's"].join('\r\n');
    const report = await core.importPois(into, Readable.from([Buffer.from(csv)]), 'csv');
    expect(report).toMatchObject({ added: 3, refused: [] });
    const back = ((await core.console['pois.search']({ clientId: into, filter: { total: 1000 } })) as PoiReply[]).map((p) => [p.name, p.description]);
    // Before: every apostrophe before a formula character was taken off, as if the export's guard had put it there.
    expect(back).toEqual([["'-5 degrees", "'=1+1"], ["'=SUM(A1)", "'@home"], ["'plain", "it's"]]);
  });

  it("takes the guard off an export written before the guard's column had a name (a byte-order mark, then exactly the export's columns), and off no other file", async () => {
    const [header = [], ...rows] = parse(await exported(), { bom: true }) as string[][];
    expect(header.at(-1)).toBe(FORMULA_GUARD_COLUMN);
    const older = stringify([header.slice(0, -1), ...rows.map((r) => r.slice(0, -1))], { record_delimiter: 'windows' });
    const names = async (file: string): Promise<string[]> => {
      const into = core.clients.create({ name: `Older export ${++clients}` }).client_id;
      expect((await core.importPois(into, Readable.from([Buffer.from(file)]), 'csv')).refused).toEqual([]);
      return ((await core.console['pois.search']({ clientId: into, filter: { total: 1000 } })) as PoiReply[]).map((p) => p.name);
    };
    expect(await names(`\uFEFF${older}`)).toEqual(NAMES);
    // Without the byte-order mark it could be any program's file: its apostrophes are its own.
    expect(await names(older)).toEqual(rows.map((r) => r[2]));
  });

  const soffice = spawnSync('soffice', ['--version'], { encoding: 'utf8' }).status === 0;
  if (!soffice) {
    if (process.env.POI_REQUIRE_LIBREOFFICE === '1') throw new Error('LibreOffice must run here (soffice not found): apt-get install libreoffice-calc-nogui');
    console.warn('skipped: opening the CSV in LibreOffice needs soffice (apt-get install libreoffice-calc-nogui)');
  }
  it.skipIf(!soffice)('opens in LibreOffice Calc as the same rows, each text in one cell as written, none evaluated; saved by Calc, it imports as it was', async () => {
    const file = join(dir, 'calc.csv');
    const csv = await exported();
    writeFileSync(file, csv);
    // Calc reads the file as a spreadsheet would (formulas evaluated) and writes what its cells hold.
    const out = join(dir, 'out');
    const run = spawnSync(
      'soffice',
      ['--headless', '--norestore', `-env:UserInstallation=file://${join(dir, 'profile')}`, '--convert-to', 'csv:Text - txt - csv (StarCalc):44,34,76,1', '--outdir', out, file],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    const opened = parse(readFileSync(join(out, 'calc.csv'), 'utf8'), { bom: true, columns: true, relax_column_count: true }) as Array<Record<string, string>>;
    const written = parse(csv, { bom: true, columns: true }) as Array<Record<string, string>>;
    expect(opened).toHaveLength(NAMES.length);
    // Before: "=1+1" became 2, and the name with a line feed became two rows. A line break inside
    // a cell is one thing to a spreadsheet: Calc writes a carriage return as a line feed.
    const lines = (cell: string | undefined): string | undefined => cell?.replace(/\r\n?/g, '\n');
    for (const column of ['name', 'description', 'category_names', FORMULA_GUARD_COLUMN]) {
      expect(opened.map((r) => lines(r[column])), column).toEqual(written.map((r) => lines(r[column])));
    }
    // Saved again by a spreadsheet (no byte-order mark any more), the file still says it was
    // guarded: its apostrophes come off, and every name reads back as it was exported.
    const into = core.clients.create({ name: 'Saved by Calc' }).client_id;
    const report = await core.importPois(into, Readable.from([readFileSync(join(out, 'calc.csv'))]), 'csv');
    expect(report).toMatchObject({ added: NAMES.length, refused: [] });
    const back = ((await core.console['pois.search']({ clientId: into, filter: { total: 1000 } })) as PoiReply[]).map((p) => p.name);
    expect(back).toEqual(NAMES.map(lines));
  });

  for (const csvFlavour of CSV_FLAVOURS) {
    it(`gives back any text exactly when exported (for a ${csvFlavour === 'plain' ? 'program' : 'spreadsheet'}) and imported again, category names included`, async () => {
      // Text as people type it, with what CSV and spreadsheets treat specially in front or inside.
      const special = fc.constantFrom("'", '=', '+', '-', '@', ' ', '\t', '\n', '\r', '"', ',', ';', '|', '\\');
      const piece = fc.oneof(special, fc.string({ minLength: 1, maxLength: 6 }));
      const text = fc.array(piece, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(''));
      await fc.assert(
        fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 4 }), async (names) => {
          const from = core.clients.create({ name: `From ${++clients}` }).client_id;
          const kept: string[] = [];
          for (const [i, name] of names.entries()) {
            // What the API refuses (a blank name, a lone surrogate, a category name twice...) is not a
            // text to round-trip: added through the console's one entry that checks its input, as the
            // UI adds. An import trims category names, so a category's is trimmed here.
            const category = await dispatch(core.console, 'categories.add', { clientId: from, desc: name.trim() });
            const categories = [1, ...(category.ok ? [(category.value as { Id: number }).Id] : [])];
            const answer = await dispatch(core.console, 'pois.add', { clientId: from, fields: { name, lat: 10 + i / 100, lng: 10, categories, desc: name } });
            const added = answer.ok ? (answer.value as PoiReply) : undefined;
            if (added) kept.push(JSON.stringify([added.name, added.description, added.categories.map((c) => c.Description).sort()]));
          }
          const into = core.clients.create({ name: `Into ${clients}` }).client_id;
          const report = await core.importPois(into, Readable.from([Buffer.from(await exported(from, csvFlavour))]), 'csv', { createCategories: true });
          expect(report.refused).toEqual([]);
          const back = (await core.console['pois.search']({ clientId: into, filter: { total: 1000 } })) as PoiReply[];
          // Before: an apostrophe of the text's own in front of a formula character was taken off,
          // and a category name holding ";" or "|" came back as two.
          expect(back.map((p) => JSON.stringify([p.name, p.description, p.categories.map((c) => c.Description).sort()])).sort()).toEqual(kept.sort());
        }),
        { numRuns: 40 },
      );
    });
  }
});
