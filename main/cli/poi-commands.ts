import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EXPORT_FORMATS, type ExportFormat } from '../core/exports/poi-export.js';
import { createCore } from '../core/service.js';
import { databasePath, type CliOptions } from './options.js';

const isFormat = (f: string | undefined): f is ExportFormat => EXPORT_FORMATS.some((known) => known === f);

/**
 * `pois export --client ID --format geojson|csv [--out FILE]`: a client's POIs, streamed to the
 * file (or stdout) page by page, so any number of POIs exports in bounded memory.
 */
export async function runPoiCommand(sub: string | undefined, options: CliOptions): Promise<number> {
  if (sub !== 'export') throw new Error(`unknown pois command ${sub ?? '(none)'}; use export`);
  if (!options.client) throw new Error('pois export needs --client CLIENT_ID');
  if (!isFormat(options.format)) throw new Error(`pois export needs --format ${EXPORT_FORMATS.join(' or ')}`);
  const core = createCore({ file: databasePath(options).file });
  try {
    const chunks = core.exportPois(options.client, options.format);
    // The first chunk is read before the file is created: an unknown client leaves no empty file.
    const first = await chunks.next();
    const rest = async function* (): AsyncGenerator<string> {
      if (!first.done) yield first.value;
      yield* chunks;
    };
    await pipeline(Readable.from(rest()), options.out ? createWriteStream(options.out, { mode: 0o600 }) : process.stdout);
    if (options.out) console.error(`Exported to ${options.out}`);
    return 0;
  } finally {
    core.close();
  }
}
