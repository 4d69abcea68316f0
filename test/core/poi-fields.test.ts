import { describe, expect, it } from 'vitest';
import { poiReply } from '../../shared/api/replies.js';
import { POI_FIELDS } from '../../shared/poi-fields.js';
import { addPoiInput, updatePoiInput } from '../../shared/schemas/pois.js';
import { validate } from '../../main/core/errors.js';
import { testCore } from '../support/core.js';

/** The POI field table is the one declaration: everything else must follow it (and a migration add its column). */
describe('the POI field table', () => {
  it('names a column of the database, a parameter of add and update and a field of the reply for every field', () => {
    const core = testCore();
    const columns = new Set((core.db.pragma('table_info(pois)') as Array<{ name: string }>).map((c) => c.name));
    for (const f of POI_FIELDS) {
      expect({ field: f.wire, column: columns.has(f.column) }).toEqual({ field: f.wire, column: true });
      if ('folded' in f) expect({ field: f.wire, key: columns.has(`${f.column}_key`) }).toEqual({ field: f.wire, key: true });
      expect(Object.keys(addPoiInput.shape)).toContain(f.wire);
      expect(Object.keys(updatePoiInput.shape)).toContain(f.wire);
      expect(Object.keys(poiReply.shape)).toContain(f.reply);
    }
    core.close();
  });

  it('round-trips every field through add and the reply, under their two names', async () => {
    const core = testCore();
    const c = core.clients.create({ name: 'Fields' }).client_id;
    const given: Record<string, string | number> = {};
    for (const f of POI_FIELDS) given[f.wire] = f.kind === 'text' ? `${f.wire}!`.slice(0, f.max) : f.kind === 'latitude' ? 12.5 : f.kind === 'longitude' ? -7.25 : 3;
    const reply = await core.pois.add(c, null, validate(addPoiInput, { ...given, categories: [1], geocode: false }));
    for (const f of POI_FIELDS) expect({ [f.reply]: (reply as Record<string, unknown>)[f.reply] }).toEqual({ [f.reply]: given[f.wire] });
    core.close();
  });
});
