import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../../main/core/exports/poi-export.js';
import { dispatch } from '../../main/core/console/dispatch.js';
import type { PoiReply } from '../../shared/wire.js';
import { testCore } from '../support/core.js';

/**
 * The CSV export as programs other than this app read it (issue 25, finding 9): an RFC 4180
 * reader that is not the app's own (Python's csv module), and LibreOffice Calc opening the file
 * headless. Then a property: any text exported and imported again comes back exactly.
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

const exported = async (client = clientId): Promise<string> => {
  let out = '';
  for await (const chunk of core.exportPois(client, 'csv')) out += chunk;
  return out;
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
    const read = spawnSync('python3', ['-c', "import csv, json, sys\nwith open(sys.argv[1], newline='', encoding='utf-8-sig') as f: print(json.dumps(list(csv.reader(f))))", file], { encoding: 'utf8' });
    expect(read.status, read.stderr).toBe(0);
    const rows = JSON.parse(read.stdout) as string[][];
    // Before: a bare line feed inside a name went out unquoted; the record split in two, and its
    // second line began with a live =cmd formula.
    expect(rows).toHaveLength(1 + NAMES.length);
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    for (const row of rows.slice(1)) {
      expect(row).toHaveLength(CSV_COLUMNS.length);
      for (const cell of row) expect(live(cell), cell).toBe(false);
    }
  });

  const soffice = spawnSync('soffice', ['--version'], { encoding: 'utf8' }).status === 0;
  if (!soffice) {
    if (process.env.POI_REQUIRE_LIBREOFFICE === '1') throw new Error('LibreOffice must run here (soffice not found): apt-get install libreoffice-calc-nogui');
    console.warn('skipped: opening the CSV in LibreOffice needs soffice (apt-get install libreoffice-calc-nogui)');
  }
  it.skipIf(!soffice)('opens in LibreOffice Calc as the same rows, each name in one cell as written, none evaluated', async () => {
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
    expect(opened.map((r) => lines(r.name))).toEqual(written.map((r) => lines(r.name)));
    expect(opened.map((r) => lines(r.description))).toEqual(written.map((r) => lines(r.description)));
  });

  it('gives back any text exactly when exported and imported again', async () => {
    // Text as people type it, with what CSV and spreadsheets treat specially in front or inside.
    const special = fc.constantFrom("'", '=', '+', '-', '@', ' ', '\t', '\n', '\r', '"', ',', ';', '|');
    const piece = fc.oneof(special, fc.string({ minLength: 1, maxLength: 6 }));
    const text = fc.array(piece, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 4 }), async (names) => {
        const from = core.clients.create({ name: `From ${++clients}` }).client_id;
        const kept: Array<[string, string | null]> = [];
        for (const [i, name] of names.entries()) {
          // What the API refuses (a blank name, a lone surrogate...) is not a text to round-trip: added
          // through the console's one entry that checks its input, as the UI adds.
          const answer = await dispatch(core.console, 'pois.add', { clientId: from, fields: { name, lat: 10 + i / 100, lng: 10, categories: [1], desc: name } });
          const added = answer.ok ? (answer.value as PoiReply) : undefined;
          if (added) kept.push([added.name, added.description]);
        }
        const into = core.clients.create({ name: `Into ${clients}` }).client_id;
        const report = await core.importPois(into, Readable.from([Buffer.from(await exported(from))]), 'csv');
        expect(report.refused).toEqual([]);
        const back = (await core.console['pois.search']({ clientId: into, filter: { total: 1000 } })) as PoiReply[];
        // Before: an apostrophe of the text's own in front of a formula character was taken off.
        expect(back.map((p) => JSON.stringify([p.name, p.description])).sort()).toEqual(kept.map((k) => JSON.stringify(k)).sort());
      }),
      { numRuns: 40 },
    );
  });
});
