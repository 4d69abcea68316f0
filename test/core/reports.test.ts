import { afterAll, describe, expect, it } from 'vitest';
import { addWarningInput } from '../../shared/schemas/pois.js';
import type { PoiReply } from '../../shared/wire.js';
import { testCore } from '../support/core.js';

const core = testCore();
const { client_id: clientId } = core.clients.create({ name: 'Reports' });
const other = core.clients.create({ name: 'Other' }).client_id;
afterAll(() => core.close());

const report = (input: Record<string, unknown>) => core.warnings.add(null, addWarningInput.parse(input));

describe('problem reports handled', () => {
  it('applies a WRONG_INFO proposal as an update, closes the report, and logs the change', async () => {
    const poi = (await core.console['pois.add']({ clientId, fields: { lat: 40, lng: -3, name: 'Cafe Plaza', phone: '+34 1', categories: [2], geocode: false } })) as PoiReply;
    const older = report({ poi: poi.id, type: 'WRONG_INFO', name: 'Café Plaza Mayor', phone: '+34 91 000 00 00' });
    core.clock.advance(1000);
    const wrongPlace = report({ poi: poi.id, type: 'WRONG_INDICATOR', lat: 40.001, lng: -3.001 });
    const closed = report({ poi: poi.id, type: 'CLOSED' });
    expect((core.console['warnings.open']({ clientId }) as Array<{ id: number }>).map((w) => w.id)).toEqual([older.id, wrongPlace.id, closed.id]);

    const updated = (await core.console['warnings.apply']({ clientId, warning: older.id })) as PoiReply;
    expect(updated).toMatchObject({ name: 'Café Plaza Mayor', phone: '+34 91 000 00 00', latitude: 40 });
    expect(updated.categories.map((c) => c.Id)).toEqual([2]);
    const moved = (await core.console['warnings.apply']({ clientId, warning: wrongPlace.id })) as PoiReply;
    expect([moved.latitude, moved.longitude]).toEqual([40.001, -3.001]);
    expect((core.console['warnings.open']({ clientId }) as Array<{ id: number }>).map((w) => w.id)).toEqual([closed.id]);
    const history = core.console['pois.history']({ clientId, poi: poi.id }) as Array<{ op: string }>;
    expect(history.filter((h) => h.op === 'update')).toHaveLength(2);

    // A CLOSED report proposes nothing: it is dismissed (or the POI deleted).
    await expect(Promise.resolve().then(() => core.console['warnings.apply']({ clientId, warning: closed.id }))).rejects.toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'warning' });
    expect(core.console['warnings.dismiss']({ clientId, warning: closed.id })).toMatchObject({ code: 200 });
    expect(core.console['warnings.open']({ clientId })).toEqual([]);
    expect(() => core.console['warnings.dismiss']({ clientId, warning: closed.id })).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('does not reach another client\'s reports, and leaves a report open when its proposal is refused', async () => {
    const poi = (await core.console['pois.add']({ clientId, fields: { lat: 41, lng: -3, name: 'Kiosk', categories: [2], geocode: false } })) as PoiReply;
    const w = report({ poi: poi.id, type: 'WRONG_INFO', categories: [9999] });
    await expect(Promise.resolve().then(() => core.console['warnings.apply']({ clientId: other, warning: w.id }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(Promise.resolve().then(() => core.console['warnings.apply']({ clientId, warning: w.id }))).rejects.toMatchObject({ code: 'NOT_FOUND', parameter: 'categories' });
    expect((core.console['warnings.open']({ clientId }) as Array<{ id: number }>).map((x) => x.id)).toEqual([w.id]);
    expect(((await core.console['pois.get']({ clientId, poi: poi.id })) as PoiReply).categories.map((c) => c.Id)).toEqual([2]);
  });
});

describe('the open reports as the console lists them', () => {
  it('name each member who reported by username, and the administrator’s reports by no one', async () => {
    const poi = (await core.console['pois.add']({ clientId, fields: { lat: 41, lng: -4, name: 'Named reporter', categories: [2], geocode: false } })) as PoiReply;
    const { member } = await core.members.register(clientId, { username: 'fieldreporter', pwd: 'secret77', email: 'fr@example.com' });
    const byMember = core.warnings.add(member.id, addWarningInput.parse({ poi: poi.id, type: 'CLOSED' }));
    const byAdmin = report({ poi: poi.id, type: 'DUPLICATED' });
    const listed = core.console['warnings.open']({ clientId }) as Array<{ id: number; reporter: string | null }>;
    expect(listed.filter((w) => w.id === byMember.id || w.id === byAdmin.id).map((w) => w.reporter)).toEqual(['fieldreporter', null]);
  });
});
