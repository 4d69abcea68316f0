import { createCore } from '../core/service.js';
import { ApiServer } from '../http/server.js';
import { isWarmable } from '../core/geocode/index.js';
import { databasePath, parsePort, parsePositive, type CliOptions } from './options.js';
import { describeLimits, parseRateLimits } from './rate-limits.js';

export const DEFAULT_PORT = 8080;

/** Serves the API until SIGINT/SIGTERM, then closes the listener and the database cleanly. */
export async function runServe(options: CliOptions): Promise<number> {
  const limits = parseRateLimits(options['rate-limit'] ?? []);
  const { dir, file } = databasePath(options);
  const core = createCore({
    file,
    limits,
    geocoding: {
      ...(options['nominatim-url'] ? { nominatimUrl: options['nominatim-url'] } : {}),
      ...(options['geocode-timeout'] ? { timeoutMs: parsePositive(options['geocode-timeout'], '--geocode-timeout') } : {}),
    },
  });
  const server = new ApiServer(core, { host: options.host ?? '127.0.0.1', port: parsePort(options.port, DEFAULT_PORT) });
  server.on('request', (r) => console.log(`${r.method} ${r.path} ${r.status} ${r.ms.toFixed(1)}ms`));
  server.on('error', (e) => console.error(`error: ${e.message}`));
  let address;
  try {
    address = await server.start();
  } catch (error) {
    core.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new Error(`port ${options.port ?? DEFAULT_PORT} is already in use; pick another with --port`);
    throw error;
  }
  const shown = address.host.includes(':') ? `[${address.host}]` : address.host;
  console.log(`Data: ${dir}`);
  console.log(`Rate limits: ${describeLimits(limits)}`);
  console.log(`API listening on http://${shown}:${address.port}/1/`);
  // Build the offline geocoding index now rather than in the first add that asks for it.
  if (isWarmable(core.geocoder)) void core.geocoder.warm();
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.stop();
  core.close();
  return 0;
}
