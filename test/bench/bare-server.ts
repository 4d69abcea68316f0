import { createServer } from 'node:http';

/**
 * The baseline of the HTTP figures: a bare node:http server (no framework, no database) that
 * answers every request with one fixed POI-shaped JSON body of about argv[2] bytes (default 485,
 * the size of a get.json reply). Run as a child process by test/bench/http-bench.ts.
 */
const target = Number(process.argv[2] ?? 485);
const poi = {
  id: 1,
  name: 'Puerta del Sol',
  description: '',
  latitude: 40.4169,
  longitude: -3.7035,
  elevation: null,
  accuracy: null,
  vaccuracy: null,
  registertime: '2026-01-15T12:00:00.000+00:00',
  categories: [{ Id: 7, Description: 'Monument and landmark', is_system_category: true }],
  address: null,
  cross_street: null,
  city: 'Madrid',
  country: 'Spain',
  postal_code: null,
  phone: null,
  twitter: null,
  last_update: '2026-01-15T12:00:00.000+00:00',
  warnings: { closed: 0, duplicated: 0, wrong_indicator: 0, wrong_info: 0 },
};
const bare = Buffer.byteLength(JSON.stringify(poi));
poi.description = 'x'.repeat(Math.max(0, target - bare));
const body = Buffer.from(JSON.stringify(poi));

const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  response.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  console.log(`bare listening on ${port} (body ${body.length} bytes)`);
});
const stop = (): void => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
