import { createReadStream, createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface CopyOptions {
  signal?: AbortSignal | undefined;
  /** Bytes copied so far by this copy. */
  onBytes?: ((bytes: number) => void) | undefined;
  /** The new file's mode; it must not exist yet. */
  mode: number;
}

/**
 * A file copied off the event loop, saying how far it got and stopped by a Cancel (a package or
 * a database can be gigabytes): what jobs copy files with. The target must not exist.
 */
export async function copyCounted(from: string, to: string, options: CopyOptions): Promise<void> {
  let bytes = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      bytes += chunk.length;
      options.onBytes?.(bytes);
      next(null, chunk);
    },
  });
  await pipeline(createReadStream(from), counted, createWriteStream(to, { flags: 'wx', mode: options.mode }), { signal: options.signal });
}
