import { stringify } from 'csv-stringify/sync';
import { Readable } from 'node:stream';
import type { ExportFormat } from '../../../shared/exports.js';
import { POI_FIELDS } from '../../../shared/poi-fields.js';
import type { PoiReply } from '../../../shared/wire.js';
import type { Services } from '../services.js';
import { guardCell, QUOTE_ALSO } from './csv-cells.js';

export { EXPORT_FORMATS, type ExportFormat } from '../../../shared/exports.js';

export const EXPORT_TYPES = { geojson: 'application/geo+json', csv: 'text/csv; charset=utf-8' } as const satisfies Record<ExportFormat, string>;

/** Rows read per page: the export's memory is this many POIs, whatever the client holds. */
const PAGE = 1_000;

/** The CSV's columns: the API's reply names, with categories as ids and as names. */
export const CSV_COLUMNS = ['id', 'uuid', ...POI_FIELDS.map((f) => f.reply), 'categories', 'category_names', 'registertime', 'last_update'] as const;

function csvRow(p: PoiReply): string[] {
  // Numbers are written as numbers; text through the formula guard (csv-cells.ts).
  const cell = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'number' ? String(v) : guardCell(String(v)));
  const record: Record<(typeof CSV_COLUMNS)[number], string> = {
    id: String(p.id),
    uuid: p.uuid,
    ...(Object.fromEntries(POI_FIELDS.map((f) => [f.reply, cell(p[f.reply])])) as Record<(typeof POI_FIELDS)[number]['reply'], string>),
    categories: p.categories.map((c) => c.Id).join(';'),
    category_names: guardCell(p.categories.map((c) => c.Description).join(';')),
    registertime: p.registertime,
    last_update: p.last_update,
  };
  return CSV_COLUMNS.map((c) => record[c]);
}

function feature(p: PoiReply): string {
  const { latitude, longitude, ...properties } = p;
  return JSON.stringify({ type: 'Feature', id: p.id, geometry: { type: 'Point', coordinates: [longitude, latitude] }, properties: { ...properties, latitude, longitude } });
}

/**
 * A client's POIs as GeoJSON or CSV, in id order, page by page: the text comes out in chunks
 * and at most PAGE POIs are held at once, so a million POIs export in bounded memory. Each page
 * is read in its own read transaction (writes go on between pages; a POI added meanwhile with a
 * higher id is included, one deleted before its page is not).
 */
export async function* exportPois(s: Pick<Services, 'store' | 'pois' | 'read'>, clientId: string, format: ExportFormat): AsyncGenerator<string> {
  // A BOM, so that spreadsheet programs read the CSV as UTF-8.
  yield format === 'csv' ? `\uFEFF${stringify([[...CSV_COLUMNS]], { record_delimiter: 'windows' })}` : '{"type":"FeatureCollection","features":[\n';
  let after = 0;
  let first = true;
  for (;;) {
    const replies = s.read(() => s.pois.replies(s.store.where(clientId, { after, limit: PAGE })));
    if (replies.length === 0) break;
    after = replies[replies.length - 1]!.id;
    if (format === 'csv') yield stringify(replies.map(csvRow), { record_delimiter: 'windows', quoted_match: QUOTE_ALSO });
    else {
      yield `${first ? '' : ',\n'}${replies.map(feature).join(',\n')}`;
      first = false;
    }
    // Other requests get their turn between pages.
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (format === 'geojson') yield '\n]}\n';
}

/**
 * An export as a stream, once its first chunk is read: an unknown client is refused before any
 * byte goes out, so a CLI leaves no empty file and a download never starts broken.
 */
export async function exportStream(chunks: AsyncGenerator<string>): Promise<Readable> {
  const first = await chunks.next();
  return Readable.from(
    (async function* () {
      if (!first.done) yield first.value;
      yield* chunks;
    })(),
  );
}
