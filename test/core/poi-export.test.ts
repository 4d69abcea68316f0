import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../../main/core/exports/poi-export.js';
import type { ExportFormat } from '../../shared/exports.js';
import { FORMULA_GUARD_COLUMN } from '../../shared/import-columns.js';
import { testCore } from '../support/core.js';

const core = testCore();
const { client_id: clientId } = core.clients.create({ name: 'Exports' });
const other = core.clients.create({ name: 'Other' }).client_id;

/** Names a spreadsheet would run, or that break naive CSV. */
const HOSTILE = ['=HYPERLINK("http://evil.example","click")', '+1+2', '-2+3', '@SUM(A1:A9)', 'She said "hi", then left', 'Two\nlines\r\nthree', '\tTabbed', 'Ñandú, Ávila'];

const text = async (format: ExportFormat, client = clientId): Promise<string> => {
  let out = '';
  for await (const chunk of core.exportPois(client, format)) out += chunk;
  return out;
};

beforeAll(async () => {
  for (const [i, name] of HOSTILE.entries()) {
    await core.console['pois.add']({ clientId, fields: { lat: 40 + i / 100, lng: -3.7 - i / 100, name, categories: [1, 7], desc: i === 0 ? '=1+1' : null, elevation: i === 1 ? -12.5 : null } });
  }
  // More than one page (1,000), to read across page boundaries.
  for (let i = 0; i < 1_203; i++) await core.console['pois.add']({ clientId, fields: { lat: 41 + i / 1e5, lng: 2 + i / 1e5, name: `Bulk ${i}`, categories: [3] } });
  await core.console['pois.add']({ clientId: other, fields: { lat: 1, lng: 1, name: 'Not yours', categories: [3] } });
});
afterAll(() => core.close());

describe('exporting a client\'s POIs', () => {
  it('writes CSV with the API\'s names as headers, the formula guard\'s column last, RFC 4180 quoting, a BOM and CRLF, categories as ids and names', async () => {
    const csv = await text('csv');
    expect(csv.startsWith('\uFEFFid,uuid,name,description,latitude,longitude,')).toBe(true);
    expect(csv.includes('\r\n')).toBe(true);
    const rows = parse(csv, { bom: true, columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(HOSTILE.length + 1_203);
    expect(Object.keys(rows[0]!)).toEqual([...CSV_COLUMNS, FORMULA_GUARD_COLUMN]);
    expect(rows.every((r) => r[FORMULA_GUARD_COLUMN] === '')).toBe(true);
    const ids = rows.map((r) => Number(r.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(rows.some((r) => r.name === 'Not yours')).toBe(false);
    const first = rows[0]!;
    expect(first.categories).toBe('1;7');
    expect(first.category_names).toBe(core.categories.list(clientId, true).filter((c) => [1, 7].includes(c.Id)).map((c) => c.Description).join('; '));
    expect(Number(first.latitude)).toBe(40);
    expect(Number(first.longitude)).toBe(-3.7);
    expect(rows[1]!.elevation).toBe('-12.5');
  });

  it('writes text cells a spreadsheet would run as formulas with a leading apostrophe, and every other cell as it is', async () => {
    const rows = parse(await text('csv'), { bom: true, columns: true }) as Array<Record<string, string>>;
    const names = rows.slice(0, HOSTILE.length).map((r) => r.name);
    expect(names).toEqual(HOSTILE.map((n) => (/^[=+\-@\t\r]/.test(n) ? `'${n}` : n)));
    expect(rows[0]!.description).toBe("'=1+1");
    // No cell of the file starts with a formula character unless it is a number.
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        if (/^[=+@\t\r]/.test(value) || (/^-/.test(value) && Number.isNaN(Number(value)))) throw new Error(`${column}: ${value}`);
      }
    }
  });

  it('writes GeoJSON: a FeatureCollection of points, properties under the API\'s reply names', async () => {
    const doc = JSON.parse(await text('geojson')) as { type: string; features: Array<{ type: string; id: number; geometry: { type: string; coordinates: [number, number] }; properties: Record<string, unknown> }> };
    expect(doc.type).toBe('FeatureCollection');
    expect(doc.features).toHaveLength(HOSTILE.length + 1_203);
    const f = doc.features[0]!;
    expect(f.geometry).toEqual({ type: 'Point', coordinates: [-3.7, 40] });
    expect(f.properties).toMatchObject({ name: HOSTILE[0], description: '=1+1', latitude: 40, longitude: -3.7 });
    expect(f.properties.categories).toEqual(core.categories.list(clientId, true).filter((c) => [1, 7].includes(c.Id)));
    expect(doc.features[5]!.properties.name).toBe('Two\nlines\r\nthree');
  });

  it('refuses an unknown client before the first byte', async () => {
    await expect(text('csv', '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('exports an empty client as a header row, or an empty collection', async () => {
    const empty = core.clients.create({ name: 'Empty' }).client_id;
    expect(parse(await text('csv', empty), { bom: true, columns: true })).toEqual([]);
    expect(JSON.parse(await text('geojson', empty))).toEqual({ type: 'FeatureCollection', features: [] });
  });
});
