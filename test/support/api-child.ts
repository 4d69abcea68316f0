import { ApiServer, type ApiServerOptions } from '../../main/http/server.js';
import { createCore } from '../../main/core/service.js';

/**
 * A listener in a process of its own, for tests that need to limit that process (its open-file
 * limit, with prlimit) or crash it: `node --import tsx test/support/api-child.ts '<ApiServerOptions JSON>'`.
 * Prints one JSON line `{port, admin}` once listening; stops on SIGTERM.
 */
const options = JSON.parse(process.argv[2] ?? '{}') as ApiServerOptions;
const core = createCore({ file: ':memory:' });
const client = core.clients.create({ name: 'Child' });
const server = new ApiServer(core, { port: 0, ...options });
server.on('error', (e) => console.error(`child error: ${e.message}`));
const { port } = await server.start();
console.log(JSON.stringify({ port, admin: client.admin_token }));
process.once('SIGTERM', () => void server.stop().then(() => process.exit(0)));
