import type { WriteStream } from 'node:fs';

/**
 * Settles once a file stream has let go of its file. A stream destroyed before its file was
 * opened still opens (creates) it afterwards, so a failed write that removes its file at once can
 * leave it behind (CI once found a stray upload spool this way): remove it after this, instead.
 */
export function writeStreamClosed(out: WriteStream): Promise<void> {
  if (out.closed) return Promise.resolve();
  // Not events.once: it would reject on the stream's own error, already handled by the caller.
  return new Promise((closed) => out.once('close', () => closed()));
}
