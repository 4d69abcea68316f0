import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Utf8Check } from '../../main/core/formats/utf8.js';
import type { PoiReply } from '../../shared/wire.js';
import { testCore } from '../support/core.js';

/**
 * Bytes that are not UTF-8 in a file to import: the row or feature holding them is refused with
 * its line or number, the others go in; a character cut by the way the file arrives is no
 * invalid byte, and U+FFFD written in the file is a character like another.
 */
const core = testCore();
afterAll(() => core.close());

const all = async (client: string): Promise<PoiReply[]> => (await core.console['pois.search']({ clientId: client, filter: { total: 1000 } })) as PoiReply[];
const bytes = (...parts: Array<string | number[]>): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
/** The file as it arrives, `size` bytes at a time. */
const inPieces = (file: Buffer, size: number): Readable => {
  const pieces: Buffer[] = [];
  for (let at = 0; at < file.length; at += size) pieces.push(file.subarray(at, at + size));
  return Readable.from(pieces);
};
const REASON = (where: string): string => `The ${where.startsWith('feature') ? 'feature' : 'row'} is not valid UTF-8 text: save the file as UTF-8`;

/** Text with a character of each UTF-8 length, and U+FFFD as a character of its own. */
const MULTI = 'Ñandú 東京 🙂 \uFFFD';

describe('invalid UTF-8 in a CSV', () => {
  it('refuses each row holding bytes that are not UTF-8, with its line and what to do, and takes the others', async () => {
    const client = core.clients.create({ name: 'CSV bytes' }).client_id;
    const file = bytes(
      'name,lat,lng,categories,desc\r\n',
      'Fine one,40,-3,7,\r\n',
      'Caf', [0xe9], ' Latin-1,40.1,-3,7,\r\n', // line 3: é as ISO-8859-1
      'Lone continuation ', [0x80], ',40.2,-3,7,\r\n', // line 4
      'Overlong slash ', [0xc0, 0xaf], ',40.3,-3,7,\r\n', // line 5
      'Surrogate ', [0xed, 0xa0, 0x80], ',40.4,-3,7,\r\n', // line 6
      `${MULTI},40.5,-3,7,\r\n`, // line 7
      '"Quoted over\ntwo lines ', [0xff], '",40.6,-3,7,\r\n', // lines 8-9
      'Fine two,40.7,-3,7,cut at the end ', [0xe2, 0x82], // line 10: a character the file ends inside
    );
    for (const size of [file.length, 1, 2, 3, 7]) {
      const report = await core.importPois(client, inPieces(file, size), 'csv', { dryRun: true });
      // Before: every row went in, with U+FFFD where the bytes were.
      expect(report.refused, `pieces of ${size}`).toEqual([
        { where: 'line 3', reason: REASON('line 3') },
        { where: 'line 4', reason: REASON('line 4') },
        { where: 'line 5', reason: REASON('line 5') },
        { where: 'line 6', reason: REASON('line 6') },
        { where: 'line 9', reason: REASON('line 9') },
        { where: 'line 10', reason: REASON('line 10') },
      ]);
      expect(report).toMatchObject({ rows: 8, added: 2 });
    }
    const report = await core.importPois(client, inPieces(file, 1), 'csv');
    expect(report.added).toBe(2);
    expect((await all(client)).map((p) => p.name)).toEqual(['Fine one', MULTI]);
  });

  it('reads every multi-byte character whole however the file is cut into pieces, a byte-order mark included', async () => {
    const client = core.clients.create({ name: 'CSV pieces' }).client_id;
    const file = Buffer.from(`\uFEFFname,lat,lng,categories,desc\n${MULTI},40,-3,7,${MULTI}${MULTI}\n`);
    for (const size of [1, 2, 3, 5]) {
      const report = await core.importPois(client, inPieces(file, size), 'csv', { dryRun: true });
      expect(report, `pieces of ${size}`).toMatchObject({ added: 1, refused: [], ignoredColumns: [] });
    }
    await core.importPois(client, inPieces(file, 1), 'csv');
    expect((await all(client)).map((p) => [p.name, p.description])).toEqual([[MULTI, `${MULTI}${MULTI}`]]);
  });
});

describe('invalid UTF-8 in a GeoJSON file', () => {
  const feature = (name: string, extra = ''): string => `{"type":"Feature","geometry":{"type":"Point","coordinates":[-3.7,40.4]},"properties":{"name":"${name}","categories":"7"${extra}}}`;

  it('refuses each feature holding bytes that are not UTF-8, in a value or in a key it would ignore, and takes the others', async () => {
    const client = core.clients.create({ name: 'GeoJSON bytes' }).client_id;
    const file = bytes(
      // Outside the features, in nothing the import reads.
      '{"type":"FeatureCollection","name":"Collection ', [0xe9], '","features":[',
      feature('Fine one'), ',',
      // Feature 2: é as ISO-8859-1 in a value.
      '{"type":"Feature","properties":{"name":"Caf', [0xe9], '","categories":"7"},"geometry":{"type":"Point","coordinates":[-3.7,40.4]}}', ',',
      // Feature 3: in a key the import would ignore.
      '{"type":"Feature","properties":{"name":"Bad key","categories":"7","not', [0xc0, 0xaf], 'used":1},"geometry":{"type":"Point","coordinates":[-3.7,40.4]}}', ',',
      feature(MULTI), ',',
      // U+FFFD as an escape.
      feature('Escaped \\ufffd'),
      ']}',
    );
    for (const size of [file.length, 1, 2, 3, 7]) {
      const report = await core.importPois(client, inPieces(file, size), 'geojson', { dryRun: true });
      // Before: every feature went in, with U+FFFD where the bytes were.
      expect(report.refused, `pieces of ${size}`).toEqual([
        { where: 'feature 2', reason: REASON('feature 2') },
        { where: 'feature 3', reason: REASON('feature 3') },
      ]);
      expect(report).toMatchObject({ rows: 5, added: 3, failed: null });
    }
    await core.importPois(client, inPieces(file, 3), 'geojson');
    expect((await all(client)).map((p) => p.name)).toEqual(['Fine one', MULTI, 'Escaped \uFFFD']);
  });

  it('reads every multi-byte character whole however the file is cut into pieces, a byte-order mark included', async () => {
    const client = core.clients.create({ name: 'GeoJSON pieces' }).client_id;
    const file = Buffer.from(`\uFEFF{"type":"FeatureCollection","features":[${feature(MULTI, `,"desc":"${MULTI}${MULTI}"`)}]}`);
    for (const size of [1, 2, 3, 5]) {
      const report = await core.importPois(client, inPieces(file, size), 'geojson', { dryRun: true });
      expect(report, `pieces of ${size}`).toMatchObject({ added: 1, refused: [], failed: null });
    }
    await core.importPois(client, inPieces(file, 1), 'geojson');
    expect((await all(client)).map((p) => [p.name, p.description])).toEqual([[MULTI, `${MULTI}${MULTI}`]]);
  });
});

describe('finding invalid UTF-8 as a stream arrives', () => {
  it('finds exactly what a decoder replaces with U+FFFD, however the bytes are cut', () => {
    // Bytes near the boundaries of UTF-8's rules: leads, continuations, overlong forms, surrogates, past U+10FFFF.
    const byte = fc.oneof(
      fc.integer({ min: 0, max: 0x7f }),
      fc.integer({ min: 0x80, max: 0xbf }),
      fc.constantFrom(0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf),
    );
    const valid = fc.string({ unit: 'grapheme', maxLength: 4 }).map((s) => [...Buffer.from(s)]);
    fc.assert(
      fc.property(fc.array(fc.oneof(byte.map((b) => [b]), valid), { maxLength: 30 }), fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 10 }), (parts, cuts) => {
        const input = Buffer.from(parts.flat());
        const check = new Utf8Check();
        const text: Buffer[] = [];
        let decoded = '';
        const take = (pieces: ReturnType<Utf8Check['push']>): void => {
          for (const piece of pieces) {
            if ('text' in piece) text.push(piece.text);
            else {
              decoded += Buffer.concat(text.splice(0)).toString('utf8');
              decoded += '\uFFFD';
              // An invalid sequence starts where the valid text before it ends.
              expect(input[piece.invalidAt]).toBeDefined();
            }
          }
        };
        let at = 0;
        for (let i = 0; at < input.length; i++) {
          const size = cuts[i % cuts.length]!;
          take(check.push(input.subarray(at, at + size)));
          at += size;
        }
        take(check.end());
        decoded += Buffer.concat(text.splice(0)).toString('utf8');
        expect(decoded).toBe(new TextDecoder('utf-8', { ignoreBOM: true }).decode(input));
      }),
      { numRuns: 2_000 },
    );
  });
});
