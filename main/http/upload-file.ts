import { createWriteStream, rmSync } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isDiskFull, ServiceError } from '../core/errors.js';
import { writeStreamClosed } from '../core/jobs/write-stream-closed.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route takes a file as its body (receiveToFile): the listener holds it to its progress,
     * not to the whole-request deadline (connection-guard.ts), so a large file can take minutes.
     */
    upload?: boolean;
  }
}

/**
 * A request's body written to a file of its own as it arrives (never held in memory), counted
 * against `limit` on the way: what map packages and imports are uploaded through. An upload that
 * fails (over the limit, cut off, a full disk) leaves no file, and says which it was.
 */
export async function receiveToFile(body: Readable, file: string, limit: number, tooLarge: () => ServiceError): Promise<void> {
  let bytes = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      bytes += chunk.length;
      next(bytes > limit ? tooLarge() : null, chunk);
    },
  });
  const out = createWriteStream(file, { mode: 0o600 });
  try {
    await pipeline(body, counted, out);
  } catch (error) {
    await writeStreamClosed(out);
    rmSync(file, { force: true });
    if (error instanceof ServiceError) throw error;
    if (isDiskFull(error)) throw new ServiceError('STORAGE_FULL', 'the disk holding the data folder is full: the upload was not kept. Free some space and try again');
    throw new ServiceError('MALFORMED_REQUEST', 'the upload was cut off before its end');
  }
}
