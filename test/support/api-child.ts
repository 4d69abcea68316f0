import { ApiServer, type ApiServerOptions } from '../../main/http/server.js';
import { openCore } from './core.js';

/**
 * A listener in a process of its own, for tests that need to limit that process (its open-file
 * limit, with prlimit) or to load its event loop without loading their own:
 * `node --import tsx test/support/api-child.ts '<ApiServerOptions JSON>' [DENSE]`.
 * DENSE POIs are packed within a few hundred metres of (48.85, 2.35), and one POI stands apart.
 * Prints one JSON line `{port, admin, poi}` once listening, then an `ANSWERED {path, end, ms}` line
 * per answered request; stops on SIGTERM.
 */
const options = JSON.parse(process.argv[2] ?? '{}') as ApiServerOptions;
const dense = Number(process.argv[3] ?? 0);
const core = openCore({ file: ':memory:' });
const client = core.clients.create({ name: 'Child' });
const poi = (await core.pois.add(client.client_id, null, { lat: 40.4, lng: -3.7, name: 'Apart', categories: [1] })).id;
if (dense > 0) {
  const insert = core.db.prepare('INSERT INTO pois (client_id, name, lat, lng, registered_at, updated_at, name_key) VALUES (?, ?, ?, ?, 0, 0, ?)');
  let seed = 3;
  const rnd = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
  core.db.transaction(() => {
    for (let i = 0; i < dense; i++) insert.run(client.client_id, `Dense ${i}`, 48.85 + (rnd() - 0.5) * 0.004, 2.35 + (rnd() - 0.5) * 0.006, `dense ${i}`);
  })();
}
const server = new ApiServer(core, { port: 0, ...options });
server.on('error', (e) => console.error(`child error: ${e.message}`));
// The server's own account of each answered request: when it was answered (the wall clock, which
// the test process shares), so a test can tell what the server did when, however busy it is.
server.on('request', (r) => console.log(`ANSWERED ${JSON.stringify({ path: r.path, end: Date.now(), ms: r.ms })}`));
const { port } = await server.start();
console.log(JSON.stringify({ port, admin: client.admin_token, poi }));
process.once('SIGTERM', () => void server.stop().then(() => process.exit(0)));
