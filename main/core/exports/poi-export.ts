import { Readable } from 'node:stream';
import type { ExportFormat, ExportOptions } from '../../../shared/file-formats.js';
import type { PoiReply } from '../../../shared/wire.js';
import type { Services } from '../services.js';
import { writerOf } from '../formats/index.js';

export type { ExportFormat, ExportOptions } from '../../../shared/file-formats.js';
export { CSV_COLUMNS } from '../formats/csv.js';

/** Rows read per page: the export's memory is this many POIs, whatever the client holds. */
const PAGE = 1_000;

/**
 * A client's POIs in id order, page by page. Each page is read in its own read transaction
 * (writes go on between pages; a POI added meanwhile with a higher id is included, one deleted
 * before its page is not).
 */
export async function* pagesOf(s: Pick<Services, 'store' | 'pois' | 'read'>, clientId: string): AsyncGenerator<PoiReply[]> {
  let after = 0;
  for (;;) {
    const replies = s.read(() => s.pois.replies(s.store.where(clientId, { after, limit: PAGE })));
    if (replies.length === 0) return;
    after = replies[replies.length - 1]!.id;
    yield replies;
    // Other requests get their turn between pages.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * A client's POIs in a format (main/core/formats/), as text in chunks: at most PAGE POIs are
 * held at once, so a million POIs export in bounded memory.
 */
export function exportPois(s: Pick<Services, 'store' | 'pois' | 'read'>, clientId: string, format: ExportFormat, options: ExportOptions = {}): AsyncGenerator<string> {
  return writerOf(format)(pagesOf(s, clientId), options);
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
