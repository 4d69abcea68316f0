import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createInvoke, fixedListener } from '../../main/app/console.js';
import { openCore, type OpenCore as Core } from '../support/core.js';

/**
 * Two cores on one database file, as the desktop app beside a `cli serve`: what one commits,
 * the other's map shows without being told.
 */
const dirs: string[] = [];
const cores: Core[] = [];
function twoCores(): { app: Core; serve: Core; clientId: string } {
  const dir = mkdtempSync(join(tmpdir(), 'poi-fresh-'));
  dirs.push(dir);
  const file = join(dir, 'poi.sqlite');
  const app = openCore({ file });
  const clientId = app.clients.create({ name: 'Shared' }).client_id;
  const serve = openCore({ file });
  cores.push(app, serve);
  return { app, serve, clientId };
}
afterEach(() => {
  cores.splice(0).forEach((c) => c.close());
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const MADRID = { south: 40, north: 41, west: -4, east: -3, zoom: 17 };
const add = (core: Core, clientId: string, name: string, lat = 40.4169, lng = -3.7035) =>
  core.pois.add(clientId, null, { lat, lng, name, categories: [7], geocode: false });
const names = async (core: Core, clientId: string, q?: string): Promise<string[]> =>
  (await core.mapViews.view(clientId, { ...MADRID, q })).points.map((p) => p.name ?? `cluster of ${p.count}`).sort();

describe("the map and another connection's commits", () => {
  it('shows what another connection added, moved, renamed and deleted', async () => {
    const { app, serve, clientId } = twoCores();
    await add(app, clientId, 'Sol');
    expect((await names(app, clientId))).toEqual(['Sol']);
    expect((await names(app, clientId, 'else'))).toEqual([]);

    const other = await add(serve, clientId, 'From elsewhere', 40.42, -3.69);
    expect((await names(app, clientId))).toEqual(['From elsewhere', 'Sol']);
    expect((await names(app, clientId, 'else'))).toEqual(['From elsewhere']);

    await serve.pois.update(clientId, { poi: other.id, name: 'Renamed elsewhere' });
    expect((await names(app, clientId))).toEqual(['Renamed elsewhere', 'Sol']);

    await serve.pois.update(clientId, { poi: other.id, lat: 48.85, lng: 2.35 });
    expect((await names(app, clientId))).toEqual(['Sol']);

    serve.pois.remove(clientId, other.id);
    await add(serve, clientId, 'Another', 40.43, -3.68);
    expect((await names(app, clientId))).toEqual(['Another', 'Sol']);
  });

  it('answers pois.version with a value that changes on every change of POIs, categories or warnings, from here or elsewhere, and only then', async () => {
    const { app, serve, clientId } = twoCores();
    const invoke = createInvoke(
      app,
      fixedListener(() => ({ enabled: false, port: 1, scope: 'local', state: 'stopped', addresses: [], error: null })),
      (e) => {
        throw e;
      },
    );
    const version = async (): Promise<unknown> => {
      const answer = await invoke('pois.version', {});
      if (!answer.ok) throw new Error(JSON.stringify(answer.error));
      return answer.value;
    };
    const seen = [await version()];
    expect(await version()).toEqual(seen[0]);
    await app.mapViews.view(clientId, MADRID);
    expect(await version(), 'reads change nothing').toEqual(seen[0]);

    const poi = await add(serve, clientId, 'From elsewhere');
    seen.push(await version());
    await add(app, clientId, 'From here');
    seen.push(await version());
    serve.categories.add(clientId, { desc: 'Tapas' });
    seen.push(await version());
    serve.warnings.add(null, { poi: poi.id, type: 'CLOSED' });
    seen.push(await version());
    expect(new Set(seen).size).toBe(seen.length);
    serve.clients.create({ name: 'Unrelated' });
    await serve.members.register(clientId, { username: 'someone01', pwd: 'secret1', email: 's@example.com' });
    expect(await version(), 'commits that touch no POI data').toEqual(seen[seen.length - 1]);

    // Several changes since the last read, the last of them no POI's: the version is the last that the map shows.
    await add(serve, clientId, 'Two at once');
    serve.categories.add(clientId, { desc: 'Churros' });
    await serve.members.register(clientId, { username: 'someone02', pwd: 'secret1', email: 't@example.com' });
    const shown = app.db.prepare("SELECT max(seq) FROM changes WHERE poi_id IS NOT NULL OR entity = 'category'").pluck().get();
    expect(shown).toBeLessThan(app.db.prepare('SELECT max(seq) FROM changes').pluck().get() as number);
    expect(await version()).toBe(String(shown));
  });
});
