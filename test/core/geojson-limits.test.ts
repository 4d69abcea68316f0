import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_FEATURE_BYTES, MAX_JSON_DEPTH } from '../../shared/import-limits.js';
import type { PoiReply } from '../../shared/wire.js';
import { ServiceError } from '../../main/core/errors.js';
import { importRecords, type ImportRecord } from '../../main/core/imports/records.js';
import { testCore } from '../support/core.js';

const core = testCore();
afterAll(() => core.close());

const feature = (name: string, properties: Record<string, unknown> = {}) => ({
  type: 'Feature',
  geometry: { type: 'Point', coordinates: [-3.7, 40.4] },
  properties: { name, categories: '2', ...properties },
});
const collection = (...features: unknown[]): string => JSON.stringify({ type: 'FeatureCollection', features });
const from = (text: string): Readable => Readable.from([Buffer.from(text)]);
const all = async (client: string): Promise<PoiReply[]> => (await core.console['pois.search']({ clientId: client, filter: { total: 1000 } })) as PoiReply[];
const names = async (client: string): Promise<string[]> => (await all(client)).map((p) => p.name).sort();

/** Characters whose escapes JSON.stringify writes longer than the character itself, and two that take two UTF-16 units. */
const ESCAPED = 'quote " backslash \\ newline \n tab \t control \u0001 accent é emoji 🙂';
/** A feature whose compact JSON is exactly `characters` long. */
const sized = (name: string, characters: number) => {
  const bare = JSON.stringify(feature(name, { note: ESCAPED, padding: '' })).length;
  return feature(name, { note: ESCAPED, padding: 'x'.repeat(characters - bare) });
};
/** A value `levels` deep (objects and arrays in turn), so a feature holding it in `desc` is `levels + 2` deep. */
const nested = (levels: number): unknown => {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { in: value };
  return value;
};

const PIECE = Buffer.alloc(64 * 1024, 'a');
/** 200 MiB. */
const PIECES = 3_200;
/**
 * `before`, a 200 MiB run of "a" as a file arrives (64 KiB at a time, never one string), then
 * `after`; the process's resident memory is sampled as the pieces are taken.
 */
function hugeFile(before: string, after: string, sample: () => void): Readable {
  return Readable.from(
    (function* () {
      yield Buffer.from(before);
      for (let i = 0; i < PIECES; i++) {
        if (i % 16 === 0) sample();
        yield PIECE;
      }
      yield Buffer.from(after);
    })(),
  );
}
/** The most the resident memory grew by while `run` ran, in MB. */
async function peakGrowth(run: (sample: () => void) => Promise<void>): Promise<number> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const sample = (): void => {
    peak = Math.max(peak, process.memoryUsage.rss());
  };
  const timer = setInterval(sample, 5);
  try {
    await run(sample);
  } finally {
    clearInterval(timer);
  }
  sample();
  return (peak - base) / 1e6;
}

describe('GeoJSON import limits', () => {
  it(`imports a feature of exactly ${MAX_FEATURE_BYTES} characters of compact JSON, and refuses one a character longer by its number, taking the features around it`, async () => {
    const client = core.clients.create({ name: 'Feature size' }).client_id;
    const atLimit = sized('At limit', MAX_FEATURE_BYTES);
    expect(JSON.stringify(atLimit)).toHaveLength(MAX_FEATURE_BYTES);
    // Pretty-printed: the whitespace between tokens is not the feature's.
    const fits = await core.importPois(client, from(JSON.stringify({ type: 'FeatureCollection', features: [feature('Before'), atLimit, feature('After')] }, null, 2)), 'geojson');
    expect(fits).toMatchObject({ rows: 3, added: 3, refused: [] });

    const over = await core.importPois(client, from(collection(feature('Kept 1'), sized('Too big', MAX_FEATURE_BYTES + 1), feature('Kept 3'))), 'geojson');
    expect(over).toMatchObject({ rows: 3, added: 2 });
    expect(over.refused).toEqual([{ where: 'feature 2', reason: expect.stringMatching(/^The feature holds more than 1,000,000 characters of JSON \(MAX_FEATURE_BYTES\)/) }]);
    expect(await names(client)).toEqual(['After', 'At limit', 'Before', 'Kept 1', 'Kept 3']);
  });

  it(`imports a feature nested ${MAX_JSON_DEPTH} deep, and refuses one a level deeper by its number, taking the features around it`, async () => {
    const client = core.clients.create({ name: 'Feature depth' }).client_id;
    const deepest = nested(MAX_JSON_DEPTH - 2);
    const fits = await core.importPois(client, from(collection(feature('Before'), feature('At limit', { desc: deepest }), feature('After'))), 'geojson');
    expect(fits).toMatchObject({ rows: 3, added: 3, refused: [] });
    // A value within the limit is read back whole.
    expect((await all(client)).find((p) => p.name === 'At limit')?.description).toBe(JSON.stringify(deepest));

    const over = await core.importPois(client, from(collection(feature('Kept 1'), feature('Too deep', { desc: nested(MAX_JSON_DEPTH - 1) }), feature('Kept 3'))), 'geojson');
    expect(over).toMatchObject({ rows: 3, added: 2 });
    expect(over.refused).toEqual([{ where: 'feature 2', reason: expect.stringMatching(/^The feature is nested more than 32 levels deep \(MAX_JSON_DEPTH\)/) }]);
    expect(await names(client)).toEqual(['After', 'At limit', 'Before', 'Kept 1', 'Kept 3']);
  });

  it('refuses a feature holding a 200 MB string, in bounded memory, and takes the others', async () => {
    const client = core.clients.create({ name: 'Huge feature' }).client_id;
    const head = collection(feature('Kept 1'), feature('Huge', { desc: '' }), feature('Kept 3'));
    const cut = head.indexOf('"desc":"') + '"desc":"'.length;
    let report: Awaited<ReturnType<typeof core.importPois>> | undefined;
    const growth = await peakGrowth(async (sample) => {
      report = await core.importPois(client, hugeFile(head.slice(0, cut), head.slice(cut), sample), 'geojson');
    });
    expect(report).toMatchObject({ rows: 3, added: 2 });
    expect(report?.refused).toEqual([{ where: 'feature 2', reason: expect.stringMatching(/MAX_FEATURE_BYTES/) }]);
    expect(await names(client)).toEqual(['Kept 1', 'Kept 3']);
    expect(growth).toBeLessThan(150);
  });

  it('refuses a feature with a property nested 200,000 levels deep, without overflowing the stack, and writes nothing of it', async () => {
    const client = core.clients.create({ name: 'Deep feature' }).client_id;
    const head = collection(feature('Kept 1'), feature('Deep', { desc: 'HOLE' }), feature('Kept 3'));
    const text = head.replace('"HOLE"', `${'['.repeat(200_000)}0${']'.repeat(200_000)}`);
    const report = await core.importPois(client, from(text), 'geojson');
    expect(report).toMatchObject({ rows: 3, added: 2 });
    expect(report.refused).toEqual([{ where: 'feature 2', reason: expect.stringMatching(/MAX_JSON_DEPTH/) }]);
    expect(await names(client)).toEqual(['Kept 1', 'Kept 3']);
  });

  it('reads past a 200 MB string outside `features` without holding it', async () => {
    const client = core.clients.create({ name: 'Huge comment' }).client_id;
    const features = JSON.stringify([feature('Kept 1'), feature('Kept 2')]);
    let report: Awaited<ReturnType<typeof core.importPois>> | undefined;
    const growth = await peakGrowth(async (sample) => {
      report = await core.importPois(client, hugeFile('{"type":"FeatureCollection","comment":"', `","features":${features}}`, sample), 'geojson');
    });
    expect(report).toMatchObject({ rows: 2, added: 2, refused: [] });
    expect(await names(client)).toEqual(['Kept 1', 'Kept 2']);
    expect(growth).toBeLessThan(150);
  });

  it('keeps the three features before the point where a file breaks off, then says it is not valid JSON', async () => {
    const text = collection(feature('One'), feature('Two'), feature('Three'), feature('Four'));
    const records = importRecords(from(text.slice(0, text.indexOf('"Four"') - 10)), 'geojson', () => undefined);
    const read: ImportRecord[] = [];
    const failure = await (async () => {
      for await (const r of records) read.push(r);
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(read.map((r) => [r.where, r.values.name])).toEqual([
      ['feature 1', 'One'],
      ['feature 2', 'Two'],
      ['feature 3', 'Three'],
    ]);
    expect(failure).toBeInstanceOf(ServiceError);
    expect(failure).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringMatching(/^the file is not valid JSON: /) });
  });

  it('reads no further into the file than the importer has asked for', async () => {
    let taken = 0;
    const many = Readable.from(
      (function* () {
        yield Buffer.from('{"type":"FeatureCollection","features":[');
        for (let i = 0; i < 100_000; i++) {
          const piece = Buffer.from(`${i ? ',' : ''}${JSON.stringify(feature(`F${i}`))}`);
          taken += piece.length;
          yield piece;
        }
        yield Buffer.from(']}');
      })(),
    );
    const records = importRecords(many, 'geojson', () => undefined);
    expect((await records.next()).value).toMatchObject({ where: 'feature 1', values: { name: 'F0' } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // What the pipes and the parser buffer (16 KiB or 16 tokens each), of a 17 MB file.
    expect(taken).toBeLessThan(256 * 1024);
    await records.return(undefined);
    expect(many.destroyed).toBe(true);
  });
});
