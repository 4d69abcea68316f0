import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Inspector } from '../../main/http/inspector/inspector.js';
import { ApiServer } from '../../main/http/server.js';
import { testCore } from '../support/core.js';

describe('a listening server', () => {
  it('reports an error of its HTTP or HTTPS server rather than throwing it where nobody listens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'poi-server-errors-'));
    const core = testCore({ file: join(dir, 'poi.sqlite') });
    const authority = core.tls;
    if (!authority) throw new Error('a core on disk has a certificate authority');
    const server = new ApiServer(core, { tls: { authority, httpsPort: 0 } });
    const reported: string[] = [];
    server.on('error', (error) => reported.push(error.message));
    await server.start();
    try {
      // What an accept that fails (EMFILE) emits. Before: an 'error' with no listener, thrown.
      const plain = Reflect.get(server, 'app') as { server: NodeJS.EventEmitter };
      const secure = Reflect.get(Reflect.get(server, 'https') as object, 'server') as NodeJS.EventEmitter;
      plain.server.emit('error', new Error('accept failed (plain)'));
      secure.emit('error', new Error('accept failed (TLS)'));
      expect(reported).toEqual(['accept failed (plain)', 'accept failed (TLS)']);
    } finally {
      await server.stop();
      core.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the inspector’s Save', () => {
  it('writes two files when asked twice at once', () => {
    const folder = mkdtempSync(join(tmpdir(), 'poi-save-twice-'));
    try {
      const inspector = new Inspector(() => undefined, { folder });
      // Before: the same name in the same millisecond, and the second refused by `wx` (a 500).
      inspector.save();
      inspector.save();
      expect(readdirSync(join(folder, 'requests'))).toHaveLength(2);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
