import { afterAll, describe, expect, it } from 'vitest';
import { addWarningInput } from '../../shared/schemas/pois.js';
import type { ChangeReply, DuplicatePair, PoiReply } from '../../shared/wire.js';
import { testCore } from '../support/core.js';

const core = testCore();
const clientId = core.clients.create({ name: 'Merges' }).client_id;
const other = core.clients.create({ name: 'Elsewhere' }).client_id;
afterAll(() => core.close());

const add = async (client: string, name: string, lat: number, lng: number): Promise<PoiReply> =>
  (await core.console['pois.add']({ clientId: client, fields: { name, lat, lng, categories: [2], geocode: false } })) as PoiReply;
const pairs = (after?: number) => core.console['pois.duplicatePairs']({ clientId, ...(after === undefined ? {} : { after }) }) as { pairs: DuplicatePair[]; next: number | null };

describe('possible duplicates of a whole client, and merging them', () => {
  it('lists each pair once: within 50 m and similar names, not far apart, not other names, not another client', async () => {
    const sol = await add(clientId, 'Café Sol', 40.4168, -3.7038);
    const sol2 = await add(clientId, 'cafe sol!', 40.41683, -3.70382);
    await add(clientId, 'Café Sol', 40.5, -3.7); // same name, 9 km away
    await add(clientId, 'Farmacia', 40.41681, -3.70381); // next door, another name
    await add(other, 'Café Sol', 40.4168, -3.7038); // another client's
    const { pairs: found, next } = pairs();
    expect(found).toEqual([{ a: { id: sol.id, name: 'Café Sol' }, b: { id: sol2.id, name: 'cafe sol!' }, distance_m: 4 }]);
    expect(next).toBeNull();
    expect(pairs(sol.id).pairs).toEqual([]);
  });

  it('keeps one, moves the other\'s reports and history to it, deletes the other, and can be undone', async () => {
    const keep = await add(clientId, 'Museo del Prado', 40.4138, -3.6921);
    const twin = await add(clientId, 'Prado', 40.41382, -3.69212);
    await core.console['pois.update']({ clientId, fields: { poi: twin.id, phone: '+34 91 330 28 00' } });
    const report = core.warnings.add(null, addWarningInput.parse({ poi: twin.id, type: 'DUPLICATED' }));

    const merged = (await core.console['pois.merge']({ clientId, keep: keep.id, other: twin.id })) as PoiReply;
    expect(merged).toMatchObject({ id: keep.id, name: 'Museo del Prado', phone: null, warnings: { duplicated: 1 } });
    expect(() => core.pois.get(clientId, twin.id)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect((core.console['warnings.open']({ clientId }) as Array<{ id: number; poi_id: number }>).find((w) => w.id === report.id)?.poi_id).toBe(keep.id);
    // The kept POI's history now holds the other's: its creation, its phone, its delete.
    const history = core.console['pois.history']({ clientId, poi: keep.id }) as ChangeReply[];
    expect(history.filter((h) => h.entity === 'poi' && h.id === String(twin.id)).map((h) => h.op)).toEqual(['delete', 'update', 'create']);
    expect(history.some((h) => h.entity === 'warning' && h.op === 'update')).toBe(true);

    // The other's delete is a tombstone like any: undone, it is back (its reports stay with the kept one).
    const tombstone = history.find((h) => h.entity === 'poi' && h.op === 'delete')!;
    await core.console['changes.undo']({ clientId, seq: tombstone.seq });
    expect(core.pois.get(clientId, twin.id)).toMatchObject({ name: 'Prado', phone: '+34 91 330 28 00' });
  });

  it('refuses a POI merged with itself, or one that is not the client\'s, and changes nothing', async () => {
    const a = await add(clientId, 'Kiosko', 41, -4);
    const b = await add(other, 'Kiosko', 41, -4);
    const before = core.db.prepare('SELECT count(*) FROM pois').pluck().get();
    const tryMerge = (input: { keep: number; other: number }) => Promise.resolve().then(() => core.console['pois.merge']({ clientId, ...input }));
    await expect(tryMerge({ keep: a.id, other: a.id })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'other' });
    await expect(tryMerge({ keep: a.id, other: b.id })).rejects.toMatchObject({ code: 'NOT_FOUND', parameter: 'other' });
    await expect(tryMerge({ keep: b.id, other: a.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(core.db.prepare('SELECT count(*) FROM pois').pluck().get()).toBe(before);
  });
});
