import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POI_FIELDS } from '../../shared/poi-fields.js';
import { SYNC_ENTITIES, SYNCED_ENTITIES, type SyncFieldKind } from '../../shared/sync-entities.js';
import { migrateCentral } from '../../main/central/store/migrate.js';
import { centralPool } from '../../main/central/store/pool.js';
import { CENTRAL_MIGRATIONS } from '../../main/central/store/migrations/index.js';
import { postgresMissing, startPostgres, type ThrowawayPostgres } from '../support/postgres.js';

const missing = postgresMissing();
if (missing) {
  if (process.env.POI_REQUIRE_POSTGRES === '1') throw new Error(`the central's tests must run here: ${missing}`);
  console.warn(`skipped: the central store's tests need PostgreSQL with PostGIS. ${missing}`);
}

describe.skipIf(missing !== undefined)('the central store (a real PostgreSQL with PostGIS)', () => {
  let pg: ThrowawayPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await pg?.remove();
  });

  it('is created by init, and a second init (or two at once) changes nothing', async () => {
    const pool = centralPool(pg.url);
    try {
      const latest = CENTRAL_MIGRATIONS.at(-1)!.version;
      expect(await migrateCentral(pool)).toEqual({ from: 0, to: latest, applied: CENTRAL_MIGRATIONS.map((m) => `${m.version} ${m.name}`) });
      // Two at once take turns on the advisory lock: neither applies anything twice.
      const again = await Promise.all([migrateCentral(pool), migrateCentral(pool)]);
      expect(again).toEqual([
        { from: latest, to: latest, applied: [] },
        { from: latest, to: latest, applied: [] },
      ]);
      const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM schema_version');
      expect(Number(rows[0]!.n)).toBe(CENTRAL_MIGRATIONS.length);
    } finally {
      await pool.end();
    }
  });

  it('is what `npm run cli -- central init --postgres URL` creates, printing what it applied', async () => {
    const url = await pg.newDatabase('from_cli');
    const cli = (...args: string[]) => promisify(execFile)(process.execPath, ['--import', 'tsx', 'main/cli.ts', ...args], { cwd: join(import.meta.dirname, '../..') });
    const { stdout } = await cli('central', 'init', '--postgres', url);
    expect(JSON.parse(stdout)).toMatchObject({ from: 0, applied: CENTRAL_MIGRATIONS.map((m) => `${m.version} ${m.name}`) });
    expect(JSON.parse((await cli('central', 'init', '--postgres', url)).stdout)).toMatchObject({ applied: [] });
    await expect(cli('central', 'init', '--postgres', 'mysql://x')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('expected a postgres://') });
  }, 60_000);

  it('has a column of the declared kind for every synced field of every entity (shared/sync-entities.ts)', async () => {
    const pool = centralPool(pg.url);
    try {
      await migrateCentral(pool);
      // How PostgreSQL names the type each kind is kept as (times as timestamptz, flags as boolean).
      const KEPT_AS: Record<SyncFieldKind, string> = { text: 'text', number: 'double precision', time: 'timestamp with time zone', flag: 'boolean', uuid: 'uuid', refs: 'ARRAY' };
      for (const entity of SYNCED_ENTITIES) {
        const { table, fields, unique } = SYNC_ENTITIES[entity];
        const { rows } = await pool.query<{ column_name: string; data_type: string }>('SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1', [table]);
        const types = Object.fromEntries(rows.map((r) => [r.column_name, r.data_type]));
        expect(Object.fromEntries(fields.map((f) => [f.name, types[f.name]]))).toEqual(Object.fromEntries(fields.map((f) => [f.name, KEPT_AS[f.kind]])));
        for (const key of unique) expect(types[key.column]).toBe('text');
        for (const bookkeeping of ['written_by', 'writers', 'echo_of', 'seq', 'version']) expect(types[bookkeeping]).toBeDefined();
      }
    } finally {
      await pool.end();
    }
  });

  it('holds every field of a POI, with a geography point that PostGIS measures and indexes', async () => {
    const pool = centralPool(pg.url);
    try {
      await migrateCentral(pool);
      const { rows: columns } = await pool.query<{ column_name: string }>("SELECT column_name FROM information_schema.columns WHERE table_name = 'pois'");
      const names = columns.map((c) => c.column_name);
      for (const f of POI_FIELDS) expect(names).toContain(f.column);
      await pool.query("INSERT INTO clients (id, name) VALUES ('4a5158a3-2f94-4c1f-9606-b374226e60ba', 'demo')");
      await pool.query(
        `INSERT INTO pois (uuid, client_id, name, lat, lng, registered_at, updated_at) VALUES
         ('0b9a4e4c-7d0a-4c4e-9a8e-2f8f4c1d2e3a', '4a5158a3-2f94-4c1f-9606-b374226e60ba', 'Puerta del Sol', 40.4169, -3.7035, now(), now()),
         ('1b9a4e4c-7d0a-4c4e-9a8e-2f8f4c1d2e3a', '4a5158a3-2f94-4c1f-9606-b374226e60ba', 'Plaza Mayor', 40.4155, -3.7074, now(), now())`,
      );
      const { rows } = await pool.query<{ m: number }>(
        "SELECT ST_Distance(a.geog, b.geog) AS m FROM pois a, pois b WHERE a.name = 'Puerta del Sol' AND b.name = 'Plaza Mayor'",
      );
      // About 360 m on the spheroid, as any map measures it.
      expect(rows[0]!.m).toBeGreaterThan(340);
      expect(rows[0]!.m).toBeLessThan(380);
      // Two rows are a sequential scan's job; with that off, the planner shows the GiST index serves the query.
      const db = await pool.connect();
      try {
        await db.query('SET enable_seqscan = off');
        const { rows: plan } = await db.query<{ 'QUERY PLAN': string }>('EXPLAIN SELECT uuid FROM pois WHERE ST_DWithin(geog, ST_MakePoint(-3.7035, 40.4169)::geography, 500)');
        expect(plan.map((p) => p['QUERY PLAN']).join('\n')).toContain('pois_geog');
      } finally {
        db.release();
      }
      // The sequence orders every change: later rows have higher seq.
      const { rows: seqs } = await pool.query<{ seq: string }>('SELECT seq FROM pois ORDER BY name DESC');
      expect(Number(seqs[1]!.seq)).toBeGreaterThan(Number(seqs[0]!.seq));
    } finally {
      await pool.end();
    }
  });

  it('refuses a database newer than this build, and a migration that fails keeps nothing of itself', async () => {
    const url = await pg.newDatabase('newer');
    const pool = centralPool(url);
    try {
      await migrateCentral(pool);
      const broken = [...CENTRAL_MIGRATIONS, { version: 99, name: 'broken', up: async (db: { query: (sql: string) => Promise<unknown> }) => { await db.query('CREATE TABLE half (x int)'); await db.query('SELECT nonsense FROM nowhere'); } }];
      await expect(migrateCentral(pool, broken)).rejects.toThrow(/central migration 99 \(broken\) failed, nothing of it was kept/);
      const { rows } = await pool.query<{ t: string | null }>("SELECT to_regclass('half')::text AS t");
      expect(rows[0]!.t).toBeNull();
      await pool.query("INSERT INTO schema_version (version, name) VALUES (50, 'from the future')");
      await expect(migrateCentral(pool)).rejects.toThrow(/schema version 50, newer than this build/);
    } finally {
      await pool.end();
    }
  });
});
