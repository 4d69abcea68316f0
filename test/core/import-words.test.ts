import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { PoiReply } from '../../shared/wire.js';
import { importSummary, reportCsvRows } from '../../shared/import-words.js';
import { testCore } from '../support/core.js';

const core = testCore();
afterAll(() => core.close());
const from = (s: string): Readable => Readable.from([Buffer.from(s)]);
const client = (name: string): string => core.clients.create({ name }).client_id;
const all = async (clientId: string): Promise<PoiReply[]> => (await core.console['pois.search']({ clientId, filter: { total: 1000 } })) as PoiReply[];
const feature = (geometry: unknown, properties: unknown) => ({ type: 'Feature', geometry, properties });
const collection = (...features: unknown[]): string => JSON.stringify({ type: 'FeatureCollection', features });

describe("an import's refusals in plain words", () => {
  it('names the field as the form labels it and says what to do, never the validator’s words', async () => {
    const csv = ['name,lat,lng,categories', ',40.2,-3.2,7', 'Up north,100,-3.1,7', 'Wordy,north,-3.5,7', 'Unknown id,40.3,-3.3,9999'].join('\n');
    const report = await core.importPois(client('Words'), from(csv), 'csv');
    // Before: "name Invalid input: expected string, received undefined", "lat must be between -90 and 90",
    // "lat must be a decimal number", "categories: no category 9999 in this client".
    expect(report.refused.map((r) => [r.where, r.reason])).toEqual([
      ['line 2', 'Name is missing: every POI needs a name'],
      ['line 3', 'Latitude must be between -90 and 90, not 100'],
      ['line 4', 'Latitude must be a decimal number (such as 40.25), not “north”'],
      ['line 5', 'This client has no category with id 9999: name the category instead, or use an id it has'],
    ]);
    // The row's name, for the full report and its CSV.
    expect(report.refused.map((r) => r.name)).toEqual([undefined, 'Up north', 'Wordy', 'Unknown id']);
  });

  it('refuses a GeoJSON Polygon for what it is, and a feature without properties with one sentence', async () => {
    const file = collection(
      feature({ type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] }, { name: 'A park', categories: '7' }),
      feature({ type: 'Point', coordinates: [-3.7, 40.4] }, null),
      feature({ type: 'Point', coordinates: [-3.7, 40.4] }, { name: 'Fine', categories: '7' }),
    );
    const report = await core.importPois(client('Shapes'), from(file), 'geojson');
    // Before: "lat must be a decimal number; lng must be a decimal number", and for null properties
    // "name Invalid input: …; categories must be category ids separated by commas".
    expect(report.refused.map((r) => [r.where, r.reason])).toEqual([
      ['feature 1', 'Only Point geometries can be imported: this feature is a Polygon'],
      ['feature 2', 'The feature has no properties: give it at least a name'],
    ]);
    expect(report.added).toBe(1);
  });

  it('groups refusals that share a cause, keeping each row and its line in the report', async () => {
    const rows = Array.from({ length: 35 }, (_, i) => `Truck ${i},40.${i},-3.1,Food truck`);
    const csv = ['name,lat,lng,category_names', ...rows, 'No category,40.5,-3.5,', 'Also none,40.6,-3.6,'].join('\n');
    const report = await core.importPois(client('Trucks'), from(csv), 'csv');
    expect(report.refusedCount).toBe(37);
    // Before: 35 entries "category "Food truck" does not exist in this client (import with categories created to add it)", and no groups.
    expect(report.refusedGroups).toEqual([
      expect.objectContaining({ count: 35, reason: '35 rows name the category “Food truck”, which does not exist: create it, or import with Create missing categories' }),
      expect.objectContaining({ count: 2, reason: '2 rows name no category: give each one, or choose a default category for rows that name none' }),
    ]);
    expect(report.refused).toHaveLength(37);
    expect(report.refused[0]).toMatchObject({ where: 'line 2', name: 'Truck 0', reason: 'The category “Food truck” does not exist: create it, or import with Create missing categories' });
    // The report as a CSV: every row, its line, name and reason.
    const csvRows = reportCsvRows(report);
    expect(csvRows[0]).toEqual(['Row', 'Name', 'Reason']);
    expect(csvRows).toHaveLength(38);
    expect(csvRows.at(-1)).toEqual(['line 38', 'Also none', 'The row names no category: give it one, or choose a default category for rows that name none']);
  });

  it('counts each group over every refused row, though the list stops at 1,000', async () => {
    const rows = Array.from({ length: 1_005 }, (_, i) => `Bad ${i},91,-3,2`);
    const report = await core.importPois(client('Many'), from(`name,lat,lng,categories\n${rows.join('\n')}\n`), 'csv');
    expect(report.refusedGroups).toEqual([expect.objectContaining({ count: 1_005, reason: '1005 rows have a Latitude out of range: it must be between -90 and 90' })]);
  });

  it('speaks in the conditional for a check, and plainly for an import', async () => {
    const csv = ['name,lat,lng,categories', 'One,40.1,-3.1,7', 'Two,40.2,-3.2,7', 'Bad,95,-3.2,7'].join('\n');
    const target = client('Conditional');
    const checked = await core.importPois(target, from(csv), 'csv', { dryRun: true });
    // Before: the UI said "Checked, nothing written: 2 added, 0 updated, 1 refused, of 3 rows".
    expect(importSummary(checked)).toBe('Checked, nothing written: 2 would be added, 0 would be updated, 1 would be refused, of 3 rows.');
    const done = await core.importPois(target, from(csv), 'csv');
    expect(importSummary(done)).toBe('2 added, 0 updated, 1 refused, of 3 rows.');
  });
});

describe('a default category for rows that name none', () => {
  it('puts rows without a category in it, and leaves the others in theirs', async () => {
    const target = client('Default');
    const csv = ['name,lat,lng,category_names', 'Bare,40.1,-3.1,', 'Shop row,40.2,-3.2,Shop'].join('\n');
    // Before: the option did not exist and "Bare" was refused.
    const report = await core.importPois(target, from(csv), 'csv', { defaultCategory: 'restaurant' });
    expect(report).toMatchObject({ added: 2, refusedCount: 0 });
    const byName = Object.fromEntries((await all(target)).map((p) => [p.name, p.categories.map((c) => c.Description)]));
    expect(byName).toEqual({ Bare: ['Restaurant'], 'Shop row': ['Shop'] });
  });

  it('refuses a default category the client does not have before reading the file, unless missing ones are created', async () => {
    const target = client('Default missing');
    const csv = 'name,lat,lng\nBare,40.1,-3.1\n';
    await expect(core.importPois(target, from(csv), 'csv', { defaultCategory: 'Food truck' })).rejects.toMatchObject({
      code: 'INVALID_PARAMETER',
      message: 'This client has no category “Food truck”: choose one of its categories, or import with Create missing categories',
    });
    const created = await core.importPois(target, from(csv), 'csv', { defaultCategory: 'Food truck', createCategories: true });
    expect(created).toMatchObject({ added: 1, createdCategories: ['Food truck'] });
  });
});
