import { openCore } from './core.js';

/**
 * Another process writing to the same database file: `count` POIs into a client, one
 * acknowledged add after another (each its own group commit), then how many were acknowledged on
 * stdout (after `ready`, once it is told to go on stdin). Used beside an import holding its transaction open (test/core/long-write.test.ts).
 */
const [file, clientId, count] = process.argv.slice(2);
const core = openCore({ file: file! });
// Opened (seconds, with tsx): the parent starts its import, then says go.
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
let acknowledged = 0;
try {
  for (let i = 0; i < Number(count); i++) {
    await core.pois.add(clientId!, null, { name: `Other ${i}`, lat: 39 + i * 1e-4, lng: 1, categories: [] });
    acknowledged++;
  }
} finally {
  process.stdout.write(`${acknowledged}\n`);
  core.close();
}
