import type { Pool } from 'pg';
import { Devices } from '../../main/central/devices.js';
import { startCentralServer } from '../../main/central/server.js';
import { migrateCentral } from '../../main/central/store/migrate.js';
import { centralPool } from '../../main/central/store/pool.js';
import { FaultProxy } from '../support/fault-proxy.js';
import { startPostgres, type ThrowawayPostgres } from '../support/postgres.js';

/** Desktops a history may have: each has its own proxy in front of the central, kept across histories. */
export const MAX_DESKTOPS = 4;

/**
 * What every history of a run shares: one real PostgreSQL with the central schema, one sync
 * service on it, and a fault proxy per desktop slot. Each history makes its own client
 * applications, devices and data folders, so histories never see each other's rows.
 */
export interface World {
  pg: ThrowawayPostgres;
  pool: Pool;
  central: string;
  devices: Devices;
  proxies: FaultProxy[];
  close(): Promise<void>;
}

export async function startWorld(): Promise<World> {
  const pg = await startPostgres();
  const pool = centralPool(pg.url);
  await migrateCentral(pool);
  const { app, url } = await startCentralServer(pool);
  const proxies = Array.from({ length: MAX_DESKTOPS + 1 }, () => new FaultProxy(url));
  await Promise.all(proxies.map((p) => p.start()));
  return {
    pg,
    pool,
    central: url,
    devices: new Devices(pool),
    proxies,
    async close() {
      // The cluster goes whatever the rest does: after a failed history a proxy or the server may
      // not close cleanly, and two long runs left their PostgreSQL running.
      try {
        await Promise.allSettled(proxies.map((p) => p.stop()));
        await Promise.race([app.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
        await pool.end().catch(() => undefined);
      } finally {
        await pg.remove();
      }
    },
  };
}
