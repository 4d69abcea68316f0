import { join } from 'node:path';
import type { JobView } from '../../shared/jobs.js';
import { ApiServer } from '../../main/http/server.js';
import { openCore } from '../support/core.js';

/**
 * The service in a process of its own for the import bench (imports.ts): a real SQLite file in
 * DIR and the API listener, so that the bench's get.json probes measure what the import does to
 * other requests, and its peak RSS is the import's alone. Driven by IPC messages:
 * `{cmd: 'import', file, format, dryRun}` answers the ended job; `{cmd: 'undo', importId}` the
 * undo's reply; `{cmd: 'rss'}` the process's peak resident memory so far, in bytes.
 * `node --import tsx test/bench/import-child.ts DIR`
 */
type Command = { cmd: 'import'; file: string; format: 'csv' | 'geojson'; dryRun: boolean } | { cmd: 'undo'; importId: string } | { cmd: 'rss' };

const core = openCore({ file: join(process.argv[2]!, 'poi.sqlite') });
const client = core.clients.create({ name: 'Import bench' });
const poi = (await core.pois.add(client.client_id, null, { lat: 40.4, lng: -3.7, name: 'Probe', categories: [1] })).id;
const server = new ApiServer(core, { port: 0 });
const { port } = await server.start();

const answer = (value: unknown): void => void process.send!(value);
process.on('message', (message: Command) => {
  void (async () => {
    try {
      if (message.cmd === 'rss') return answer({ maxRss: process.resourceUsage().maxRSS * 1024 });
      if (message.cmd === 'undo') return answer(await core.undo.importRun(client.client_id, message.importId));
      const job = core.startImport(client.client_id, { path: message.file, name: message.file, temporary: false }, message.format, { dryRun: message.dryRun, createCategories: true, addIdentical: true });
      const ended: JobView = await core.jobs.whenDone(job.id);
      answer(ended);
    } catch (error) {
      answer({ error: error instanceof Error ? error.message : String(error) });
    }
  })();
});
process.once('SIGTERM', () => void server.stop().then(() => process.exit(0)));
answer({ port, admin: client.admin_token, poi });
