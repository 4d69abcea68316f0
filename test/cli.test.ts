import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { writeMbtiles, writePmtiles } from '../main/build/map-package-writer.js';
import { defaultDataDir, PRODUCT_NAME } from '../main/data-dir.js';
import { EXPORT_FORMATS, IMPORT_FORMATS } from '../shared/file-formats.js';
import { openCore } from './support/core.js';
import { rasterTiles, streetsAround, tilesAround, vectorTiles } from './support/map-fixtures.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
// One process, tsx as a loader: signals reach our code directly (the tsx CLI would relay them).
const node = process.execPath;
const tsxArgs = (...args: string[]): string[] => ['--import', 'tsx', ...args];
const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'poi-cli-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const cli = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const { stdout } = await run(node, tsxArgs('main/cli.ts', ...args), { cwd: root, env: { ...process.env, ...env } });
  return JSON.parse(stdout) as unknown;
};

// Each case runs several CLI processes through tsx (one to two seconds each to start on a busy
// machine), and map imports and restores their side processes too: 30 s was cut close in CI.
describe('the CLI', { timeout: 120_000 }, () => {
  it('adds clients and lists them without secrets, in the folder given by --data', async () => {
    const data = join(tempDir(), 'new-folder');
    const demo = (await cli(['client', 'add', '--name', 'demo', '--data', data])) as Record<string, unknown>;
    expect(Object.keys(demo).sort()).toEqual(['admin_token', 'client_id', 'implicit_flow', 'name']);
    expect(demo).toMatchObject({ name: 'demo', implicit_flow: false });
    const open = (await cli(['client', 'add', '--name', 'open', '--implicit-flow', '--data', data])) as Record<string, unknown>;
    expect(open.implicit_flow).toBe(true);
    const list = (await cli(['client', 'list', '--data', data])) as Array<Record<string, unknown>>;
    expect(list.map((c) => c.name)).toEqual(['demo', 'open']);
    expect(JSON.stringify(list)).not.toContain(String(demo.admin_token));
    expect(existsSync(join(data, 'poi.sqlite'))).toBe(true);
  });

  it('uses POI_DATA_DIR when --data is not given', async () => {
    const data = tempDir();
    await cli(['client', 'add', '--name', 'env'], { POI_DATA_DIR: data });
    expect(((await cli(['client', 'list', '--data', data])) as unknown[]).length).toBe(1);
  });

  it('rotates an admin token and toggles Implicit Flow', async () => {
    const data = tempDir();
    const demo = (await cli(['client', 'add', '--name', 'demo', '--data', data])) as { client_id: string; admin_token: string };
    const rotated = (await cli(['client', 'rotate-token', '--client', demo.client_id, '--data', data])) as { admin_token: string };
    expect(rotated.admin_token).not.toBe(demo.admin_token);
    const on = (await cli(['client', 'implicit-flow', '--client', demo.client_id, '--on', '--data', data])) as { implicit_flow: boolean };
    expect(on.implicit_flow).toBe(true);
  });

  it('imports, lists and removes offline map packages, and refuses a broken file saying why', async () => {
    const data = tempDir();
    const file = join(data, 'lisbon.pmtiles');
    writePmtiles(file, { format: 'png', name: 'Lisbon', tiles: rasterTiles(tilesAround(-9.14, 38.71, 6, 6), [10, 20, 30]) });
    const pkg = (await cli(['maps', 'import', file, '--name', 'Lisbon raster', '--data', data])) as { id: string; name: string; kind: string };
    expect(pkg).toMatchObject({ name: 'Lisbon raster', kind: 'raster' });
    const vector = join(data, 'lisbon-streets.mbtiles');
    writeMbtiles(vector, { format: 'pbf', name: 'Lisbon streets', tiles: vectorTiles(streetsAround(-9.14, 38.71), tilesAround(-9.14, 38.71, 14, 14)) });
    const streets = (await cli(['maps', 'import', vector, '--data', data])) as { id: string; kind: string; container: string; layers: string[] };
    expect(streets).toMatchObject({ kind: 'vector', container: 'mbtiles', layers: ['road', 'road_label', 'water'] });
    expect(((await cli(['maps', 'list', '--data', data])) as Array<{ id: string }>).map((p) => p.id)).toEqual([pkg.id, streets.id]);
    await cli(['maps', 'remove', streets.id, '--data', data]);
    const broken = join(data, 'broken.mbtiles');
    writeFileSync(broken, 'not a map at all');
    await expect(run(node, tsxArgs('main/cli.ts', 'maps', 'import', broken, '--data', data), { cwd: root })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('broken.mbtiles cannot be imported: it is neither an MBTiles file nor a PMTiles archive'),
    });
    await cli(['maps', 'remove', pkg.id, '--data', data]);
    expect(await cli(['maps', 'list', '--data', data])).toEqual([]);
  });

  it('imports POIs with --geocode offline: street and cross street from an imported vector package', async () => {
    const data = tempDir();
    const vector = join(data, 'lisbon-streets.mbtiles');
    // Fixture Street runs east-west through 38.71, -9.14, Test Avenue north-south.
    writeMbtiles(vector, { format: 'pbf', name: 'Lisbon streets', tiles: vectorTiles(streetsAround(-9.14, 38.71), tilesAround(-9.14, 38.71, 14, 14)) });
    await cli(['maps', 'import', vector, '--data', data]);
    const demo = (await cli(['client', 'add', '--name', 'demo', '--data', data])) as { client_id: string };
    const csv = join(data, 'rows.csv');
    // 6 m north of Fixture Street, 17 m east of Test Avenue.
    writeFileSync(csv, 'name,lat,lng,categories\nKiosk,38.71005,-9.1398,7\n');
    const { stdout } = await run(node, tsxArgs('main/cli.ts', 'pois', 'import', csv, '--client', demo.client_id, '--geocode', '--data', data), { cwd: root });
    expect(JSON.parse(stdout)).toMatchObject({ added: 1, refused: [] });
    const core = openCore({ file: join(data, 'poi.sqlite') });
    try {
      const [poi] = (await core.console['pois.search']({ clientId: demo.client_id, filter: { total: 10 } })) as Array<Record<string, unknown>>;
      // Before: address and cross_street null (city and country only).
      expect(poi).toMatchObject({ name: 'Kiosk', address: 'Fixture Street', cross_street: 'Test Avenue', city: 'Lisbon', country: 'Portugal' });
    } finally {
      core.close();
    }
  });

  it('exports a client\'s POIs to a file as CSV or GeoJSON, and refuses an unknown client without leaving a file', async () => {
    const data = tempDir();
    const demo = (await cli(['client', 'add', '--name', 'demo', '--data', data])) as { client_id: string };
    const core = openCore({ file: join(data, 'poi.sqlite') });
    await core.console['pois.add']({ clientId: demo.client_id, fields: { lat: 38.7, lng: -9.1, name: 'Praça do Comércio', categories: [7] } });
    core.close();
    const csv = join(data, 'out.csv');
    await run(node, tsxArgs('main/cli.ts', 'pois', 'export', '--client', demo.client_id, '--format', 'csv', '--out', csv, '--data', data), { cwd: root });
    expect(readFileSync(csv, 'utf8')).toContain('Praça do Comércio');
    const { stdout } = await run(node, tsxArgs('main/cli.ts', 'pois', 'export', '--client', demo.client_id, '--format', 'geojson', '--data', data), { cwd: root });
    expect((JSON.parse(stdout) as { features: Array<{ properties: { name: string } }> }).features.map((f) => f.properties.name)).toEqual(['Praça do Comércio']);
    // Imported into another client: the same POI; a file with a bad row exits 1 and says which line.
    const other = (await cli(['client', 'add', '--name', 'other', '--data', data])) as { client_id: string };
    const { stdout: imported } = await run(node, tsxArgs('main/cli.ts', 'pois', 'import', csv, '--client', other.client_id, '--data', data), { cwd: root });
    const report = JSON.parse(imported) as { importId: string };
    expect(report).toMatchObject({ rows: 1, added: 1, refused: [] });
    // Undone whole: the POI it added is gone again; a second undo is refused, saying why.
    expect(await cli(['undo', 'import', report.importId, '--client', other.client_id, '--data', data])).toEqual({ undone: 1, poi: null });
    const again = await run(node, tsxArgs('main/cli.ts', 'undo', 'import', report.importId, '--client', other.client_id, '--data', data), { cwd: root }).catch((e: { code: number; stderr: string }) => e);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('already undone') });
    const bad = join(data, 'bad.csv');
    writeFileSync(bad, 'name,lat,lng,categories\nFine,1,1,7\nBroken,95,1,7\n');
    const refused = await run(node, tsxArgs('main/cli.ts', 'pois', 'import', bad, '--client', other.client_id, '--dry-run', '--data', data), { cwd: root }).catch((e: { code: number; stdout: string }) => e);
    expect(refused).toMatchObject({ code: 1 });
    expect(JSON.parse((refused as { stdout: string }).stdout)).toMatchObject({ added: 1, dryRun: true, refused: [{ where: 'line 3' }] });
    const missing = join(data, 'missing.csv');
    await expect(run(node, tsxArgs('main/cli.ts', 'pois', 'export', '--client', '00000000-0000-4000-8000-000000000000', '--format', 'csv', '--out', missing, '--data', data), { cwd: root })).rejects.toMatchObject({ code: 1 });
    expect(existsSync(missing)).toBe(false);
  });

  it('imports rows without a category into --category NAME, and says what a --dry-run would do in the conditional', async () => {
    const data = tempDir();
    const demo = (await cli(['client', 'add', '--name', 'demo', '--data', data])) as { client_id: string };
    const file = join(data, 'bare.csv');
    writeFileSync(file, 'name,lat,lng\nBare one,40.1,-3.1\nBare two,40.2,-3.2\nOff,95,-3.3\n');
    const args = ['pois', 'import', file, '--client', demo.client_id, '--category', 'Restaurant', '--data', data];
    // Before: "Unknown option '--category'".
    const checked = await run(node, tsxArgs('main/cli.ts', ...args, '--dry-run'), { cwd: root }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect(checked).toMatchObject({ code: 1, stderr: expect.stringContaining('Checked, nothing written: 2 would be added, 0 would be updated, 1 would be refused, of 3 rows.') });
    expect((checked as { stderr: string }).stderr).toContain('line 4: Latitude must be between -90 and 90, not 95');
    await run(node, tsxArgs('main/cli.ts', ...args), { cwd: root }).catch((e: { code: number }) => expect(e.code).toBe(1));
    const core = openCore({ file: join(data, 'poi.sqlite') });
    const pois = (await core.console['pois.search']({ clientId: demo.client_id, filter: {} })) as Array<{ name: string; categories: Array<{ Description: string }> }>;
    core.close();
    expect(pois.map((p) => [p.name, p.categories.map((c) => c.Description)])).toEqual([['Bare one', ['Restaurant']], ['Bare two', ['Restaurant']]]);
    // A category the client does not have: refused before anything is read.
    await expect(run(node, tsxArgs('main/cli.ts', 'pois', 'import', file, '--client', demo.client_id, '--category', 'Food truck', '--data', data), { cwd: root })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('This client has no category “Food truck”: choose one of its categories, or import with Create missing categories'),
    });
  });

  it('exports a CSV for programs with --plain, which imports as it is; refuses --plain for a format without it; lists the formats in its usage', async () => {
    const data = tempDir();
    const demo = (await cli(['client', 'add', '--name', 'demo', '--data', data])) as { client_id: string };
    const core = openCore({ file: join(data, 'poi.sqlite') });
    for (const name of ['=1+1', "'-5 degrees"]) await core.console['pois.add']({ clientId: demo.client_id, fields: { lat: 38.7, lng: -9.1, name, categories: [7] } });
    core.close();
    const plain = join(data, 'plain.csv');
    // Before: "Unknown option '--plain'".
    await run(node, tsxArgs('main/cli.ts', 'pois', 'export', '--client', demo.client_id, '--format', 'csv', '--plain', '--out', plain, '--data', data), { cwd: root });
    const text = readFileSync(plain, 'utf8');
    expect(text.startsWith('id,uuid,name,')).toBe(true);
    expect(text).toContain(',=1+1,');
    expect(text).toContain(",'-5 degrees,");
    const other = (await cli(['client', 'add', '--name', 'other', '--data', data])) as { client_id: string };
    await run(node, tsxArgs('main/cli.ts', 'pois', 'import', plain, '--client', other.client_id, '--data', data), { cwd: root });
    const back = openCore({ file: join(data, 'poi.sqlite') });
    expect(((await back.console['pois.search']({ clientId: other.client_id, filter: {} })) as Array<{ name: string }>).map((p) => p.name).sort()).toEqual(["'-5 degrees", '=1+1']);
    back.close();
    await expect(run(node, tsxArgs('main/cli.ts', 'pois', 'export', '--client', demo.client_id, '--format', 'geojson', '--plain', '--data', data), { cwd: root })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--plain is for --format csv'),
    });
    const { stdout: usage } = await run(node, tsxArgs('main/cli.ts', '--help'), { cwd: root });
    expect(usage).toContain(`pois export --client ID --format ${EXPORT_FORMATS.join('|')} [--plain]`);
    expect(usage).toContain(`[--format ${IMPORT_FORMATS.join('|')}]`);
  });

  it('backs up (to the folder, or --out FILE), lists the backups, and restores one, keeping the state it replaced', async () => {
    const data = tempDir();
    await cli(['client', 'add', '--name', 'before', '--data', data]);
    const out = join(tempDir(), 'copy.sqlite');
    expect(await cli(['backup', '--out', out, '--data', data])).toMatchObject({ kind: 'manual', path: out });
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const inFolder = (await cli(['backup', '--data', data])) as { name: string; path: string };
    expect(inFolder.path).toBe(join(data, 'backups', inFolder.name));
    await cli(['client', 'add', '--name', 'after', '--data', data]);
    const restored = (await cli(['restore', out, '--data', data])) as { saved: { kind: string; name: string } };
    expect(restored.saved.kind).toBe('before-restore');
    expect(((await cli(['client', 'list', '--data', data])) as Array<{ name: string }>).map((c) => c.name)).toEqual(['before']);
    const list = (await cli(['backups', 'list', '--data', data])) as Array<{ name: string }>;
    expect(list.map((b) => b.name)).toEqual(expect.arrayContaining([inFolder.name, restored.saved.name]));
    // By name, from the folder: the state before the first restore comes back.
    await cli(['restore', restored.saved.name, '--data', data]);
    expect(((await cli(['client', 'list', '--data', data])) as Array<{ name: string }>).map((c) => c.name)).toEqual(['before', 'after']);
    const junk = join(tempDir(), 'junk.sqlite');
    writeFileSync(junk, 'not a database at all, just text '.repeat(200));
    await expect(run(node, tsxArgs('main/cli.ts', 'restore', junk, '--data', data), { cwd: root })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('nothing was changed'),
    });
  });

  it('as poi-admin (the package bin), writes only the export to standard output', async () => {
    const data = tempDir();
    const { client_id: client } = (await cli(['client', 'add', '--name', 'Piped', '--data', data])) as { client_id: string };
    const viaBin = await run(node, ['bin/poi-admin.mjs', 'pois', 'export', '--client', client, '--format', 'geojson', '--data', data], { cwd: root });
    // The whole of it is the file: `npm run cli` writes npm's banner there first.
    expect(JSON.parse(viaBin.stdout)).toMatchObject({ type: 'FeatureCollection', features: [] });
    expect(viaBin.stdout.startsWith('{')).toBe(true);
  });

  it('fails with a message and a non-zero code on bad usage', async () => {
    await expect(run(node, tsxArgs('main/cli.ts', 'client', 'add'), { cwd: root, env: { ...process.env, POI_DATA_DIR: tempDir() } })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--name'),
    });
    await expect(run(node, tsxArgs('main/cli.ts', 'bogus'), { cwd: root })).rejects.toMatchObject({ code: 2 });
  });

  it('serves the API on the port asked, and stops cleanly on SIGTERM', async () => {
    const data = tempDir();
    const demo = (await cli(['client', 'add', '--name', 'demo', '--data', data])) as { admin_token: string };
    const port = await freePort();
    const child = spawn(node, tsxArgs('main/cli.ts', 'serve', '--data', data, '--port', String(port)), { cwd: root });
    const output = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (c: Buffer) => {
        text += c.toString();
        if (text.includes('listening on')) resolve(text);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${text}`)));
    });
    expect(output).toContain(`http://127.0.0.1:${port}/1/`);
    // Loaded before the listener opens, so that the first requests do not wait for it.
    expect(output).toMatch(/Offline geocoder: [\d,]+ places, loaded in \d+ ms\n[\s\S]*API listening/);
    const r = await fetch(`http://127.0.0.1:${port}/1/users.json?access_token=${demo.admin_token}`);
    expect(r.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('serves with --cors and --fault, and says so in the listener status the Listener panel reads', async () => {
    const data = tempDir();
    const demo = (await cli(['client', 'add', '--name', 'demo', '--data', data])) as { admin_token: string };
    const port = await freePort();
    const child = spawn(node, tsxArgs('main/cli.ts', 'serve', '--data', data, '--port', String(port), '--cors', 'http://localhost:5173', '--fault', 'users:latency=1ms'), { cwd: root });
    try {
      const output = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.on('data', (c: Buffer) => {
          text += c.toString();
          if (text.includes('listening on')) resolve(text);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${text}`)));
      });
      expect(output).toContain('Faults on purpose: users:latency=1ms');
      expect(output).toContain('CORS: pages of http://localhost:5173 may call the API from a browser');
      const token = readFileSync(join(data, 'console-token'), 'utf8').trim();
      const status = await fetch(`http://127.0.0.1:${port}/console/api/listener.status`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
      expect(((await status.json()) as { value: unknown }).value).toMatchObject({ faults: ['users:latency=1ms'], corsOrigins: ['http://localhost:5173'], configurable: false, pagePath: '/connect' });
      // The page for a phone that the Listener panel's QR codes point at.
      expect(await (await fetch(`http://127.0.0.1:${port}/connect`)).text()).toContain('Connect a phone to the POI API');
      const r = await fetch(`http://127.0.0.1:${port}/1/users.json?access_token=${demo.admin_token}`, { headers: { origin: 'http://localhost:5173' } });
      expect([r.status, r.headers.get('x-fault-injected'), r.headers.get('access-control-allow-origin')]).toEqual([200, 'users:latency=1ms', 'http://localhost:5173']);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);

  it('serves the admin UI on a fresh clone: builds it first when it is missing', async () => {
    const ui = join(tempDir(), 'renderer');
    const child = spawn(node, tsxArgs('main/cli.ts', 'serve', '--data', tempDir(), '--port', '0'), {
      cwd: root,
      env: { ...process.env, POI_RENDERER_DIR: ui },
    });
    try {
      const output = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.on('data', (c: Buffer) => {
          text += c.toString();
          if (/Admin UI: \S+\n/.test(text)) resolve(text);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${text}`)));
      });
      expect(output).toContain('Building the admin UI');
      const address = /Admin UI: (\S+)/.exec(output)![1]!;
      const token = /[#?]token=([\w-]+)/.exec(address)![1]!;
      const origin = new URL(address).origin;
      expect(existsSync(join(ui, 'index.html'))).toBe(true);
      const page = await fetch(`${origin}/`, { headers: { authorization: `Bearer ${token}` } });
      const html = await page.text();
      expect(html).not.toContain('not built');
      expect(page.status).toBe(200);
      const script = /src="\.?\/?(assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      expect((await fetch(`${origin}/${script}`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.on('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
  }, 120_000);

  it('refuses a malformed --cors origin before it starts, saying what an origin is', async () => {
    await expect(run(node, tsxArgs('main/cli.ts', 'serve', '--data', tempDir(), '--port', '0', '--cors', 'http://localhost:5173', '--cors', 'http://localhost:5173/app'), { cwd: root })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/--cors: "http:\/\/localhost:5173\/app" must be an origin such as http:\/\/localhost:5173/),
    });
  });

  it('refuses a malformed --fault rule before it starts, saying how to write one', async () => {
    await expect(run(node, tsxArgs('main/cli.ts', 'serve', '--data', tempDir(), '--port', '0', '--fault', 'pois/get:status=404@10%'), { cwd: root })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/--fault: the fault rule "pois\/get:status=404@10%" needs status 500, 503 or 429, not "404"; write OPERATION/),
    });
  });

  it('says plainly when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(run(node, tsxArgs('main/cli.ts', 'serve', '--data', tempDir(), '--port', String(port)), { cwd: root })).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining(`port ${port} is already in use`),
      });
    } finally {
      blocker.close();
    }
  });
});

describe('the data folder', () => {
  it('is the per-user application-data folder Electron uses, overridable by POI_DATA_DIR', () => {
    expect(defaultDataDir({ XDG_CONFIG_HOME: '/x/config' }, 'linux')).toBe(join('/x/config', PRODUCT_NAME));
    expect(defaultDataDir({ APPDATA: 'C:/Users/a/AppData/Roaming' }, 'win32')).toBe(join('C:/Users/a/AppData/Roaming', PRODUCT_NAME));
    expect(defaultDataDir({}, 'darwin')).toMatch(/Library\/Application Support\/POI Membership Admin$/);
    expect(defaultDataDir({ POI_DATA_DIR: '/data/poi', XDG_CONFIG_HOME: '/x' }, 'linux')).toBe('/data/poi');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
