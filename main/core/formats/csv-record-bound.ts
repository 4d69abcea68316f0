import { Transform } from 'node:stream';
import { MAX_RECORD_BYTES } from '../../../shared/import-limits.js';

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Bytes passed through untouched, counted per CSV record: the parser's own `max_record_size`
 * bounds one cell, not a record, so a row of 1,000 cells of 999,999 characters each would be
 * held whole (a gigabyte) before it could be refused. A record ends at a line break outside
 * quotes (a doubled quote inside a quoted cell toggles twice, so the state stays right). The
 * stream fails with a plain message once a record passes `limit` bytes.
 */
export function boundRecords(limit = MAX_RECORD_BYTES): Transform {
  let quoted = false;
  let record = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, next) {
      for (let i = 0; i < chunk.length; ) {
        const quote = chunk.indexOf(QUOTE, i);
        let end = quote === -1 ? chunk.length : quote;
        if (!quoted) {
          const lf = chunk.indexOf(LF, i);
          const cr = chunk.indexOf(CR, i);
          for (const brk of [lf, cr]) if (brk !== -1 && brk < end) end = brk;
        }
        record += end - i;
        if (record > limit) return next(new Error(`a record holds more than ${limit.toLocaleString('en')} bytes (MAX_RECORD_BYTES): a CSV row is not that long; check the file's quotes and line breaks`));
        if (end === chunk.length) break;
        if (chunk[end] === QUOTE) {
          quoted = !quoted;
          record++;
        } else record = 0;
        i = end + 1;
      }
      next(null, chunk);
    },
  });
}
