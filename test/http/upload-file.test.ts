import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../main/core/errors.js';
import { receiveToFile } from '../../main/http/upload-file.js';

/**
 * An upload refused at its first chunk fails before its file is even opened; the file stream
 * still opens it afterwards. The file must be gone once receiveToFile answers, not only at its
 * call: CI once saw a stray `.upload-*.part` left by exactly this (import-upload-limit.test.ts).
 */
const folder = mkdtempSync(join(tmpdir(), 'upload-file-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const tooLarge = (): ServiceError => new ServiceError('PAYLOAD_TOO_LARGE', 'over the test limit');

describe('an upload refused as it arrives', () => {
  it('leaves no file behind, even when refused before the file was opened', async () => {
    for (let i = 0; i < 100; i++) {
      await expect(receiveToFile(Readable.from([Buffer.alloc(2_000)]), join(folder, `upload-${i}.part`), 1_000, tooLarge)).rejects.toThrow('over the test limit');
    }
    // Opens still pending would land here: wait past them.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(readdirSync(folder)).toEqual([]);
  });
});
