import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PulledRow } from '../../shared/sync.js';
import { LocalRows } from '../../main/core/sync/local-rows.js';
import { PagedApply } from '../../main/core/sync/paged-apply.js';
import { newUuid } from '../../main/core/store/new-uuid.js';
import { fileCores } from '../support/file-cores.js';
import { longestHold } from '../support/loop-hold.js';
import type { OpenCore } from '../support/core.js';

/**
 * A pull's page applied a slice at a time (main/core/sync/paged-apply.ts), on a real SQLite file,
 * with local edits made between two slices through the app's own write path: none is ever
 * overwritten by the page, every other row of the page is applied exactly once, and the event
 * loop is given back between slices.
 */
const { fileCore, release } = fileCores('poi-paged-');

/** A client with `held` POIs as an earlier pull left them (pushed: not pending), and a page from the central renaming each and adding `added` more. */
function scene(core: OpenCore, held: number, added: number) {
  const clientId = core.clients.create({ name: 'Field' }).client_id;
  const ids = core.pois.addMany(clientId, Array.from({ length: held }, (_, i) => ({ name: `Held ${i}`, lat: 40 + i * 1e-4, lng: -3.7, categories: [2] })));
  core.sync.state.write({ pushed: core.sync.lastSeq() });
  const local = new LocalRows(core.db, core.sync.refs);
  const uuidOf = core.db.prepare<[number], string>('SELECT uuid FROM pois WHERE id = ?').pluck();
  let seq = 1;
  const rows: PulledRow[] = ids.map((id, i) => {
    const wire = local.get('poi', clientId, uuidOf.get(id)!)!;
    return { entity: 'poi', uuid: wire.uuid, seq: seq++, version: 2, deleted: false, fields: { ...wire.fields, name: `Central ${i}` } };
  });
  const template = rows[0]!.fields;
  for (let i = 0; i < added; i++) rows.push({ entity: 'poi', uuid: newUuid(), seq: seq++, version: 1, deleted: false, fields: { ...template, name: `New ${i}`, lat: 41 + i * 1e-4 } });
  return { clientId, ids, rows };
}

describe('a pulled page applied a slice at a time', () => {
  it('never overwrites a local edit made between two slices, and applies every other row once (random histories)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 0, max: 60 }), fc.array(fc.tuple(fc.nat(40), fc.nat(1_000)), { maxLength: 15 }), async (held, added, edits) => {
        const core = fileCore();
        const { clientId, ids, rows } = scene(core, held, added);
        const paged = new PagedApply(core.sideConnection!(), core.writes, core.clock, { sliceMs: 0, chunk: 3 });
        const edited = new Set<number>();
        try {
          const applying = paged.apply(clientId, rows, () => core.sync.pending(clientId, core.sync.state.read().pushed));
          // Local edits at random turns while the page is applied, each acknowledged (group commit).
          const editing = (async () => {
            for (const [turns, which] of [...edits].sort((a, b) => a[0] - b[0])) {
              for (let t = 0; t < turns % 8; t++) await new Promise((resolve) => setImmediate(resolve));
              const id = ids[which % ids.length]!;
              await core.pois.update(clientId, { poi: id, name: `Local ${id}` });
              edited.add(id);
            }
          })();
          await Promise.all([applying, editing]);
        } finally {
          paged.close();
        }
        const names = new Map(core.db.prepare<[string], { id: number; name: string }>('SELECT id, name FROM pois WHERE client_id = ?').all(clientId).map((r) => [r.id, r.name]));
        ids.forEach((id, i) => expect(names.get(id)).toBe(edited.has(id) ? `Local ${id}` : `Central ${i}`));
        const news = [...names.values()].filter((n) => n.startsWith('New ')).sort();
        expect(news).toEqual(Array.from({ length: added }, (_, i) => `New ${i}`).sort());
        release(core);
      }),
      { numRuns: 15 },
    );
  }, 120_000);

  it('keeps nothing aside when a page goes again over its own committed first part (a retry, a crash before the cursor)', async () => {
    const core = fileCore();
    const clientId = core.clients.create({ name: 'Again' }).client_id;
    const [poiId] = core.pois.addMany(clientId, [{ name: 'P', lat: 40, lng: -3.7, categories: [2] }]);
    core.sync.state.write({ pushed: core.sync.lastSeq() });
    const uuid = core.db.prepare<[number], string>('SELECT uuid FROM pois WHERE id = ?').pluck().get(poiId!)!;
    const wire = new LocalRows(core.db, core.sync.refs).get('poi', clientId, uuid)!;
    const member = newUuid();
    const fields = { username: 'annabelle1', email: 'ann@example.org', pwd_hash: '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$aGFzaA', gender: 'UNDEFINED', birthday: null, email_verified: 0, registered_at: 1_700_000_000_000 };
    const other = { ...wire.fields, name: 'By the member', lat: 41 };
    const page: PulledRow[] = [
      { entity: 'member', uuid: member, seq: 1, version: 1, deleted: false, fields },
      { entity: 'poi', uuid: newUuid(), seq: 2, version: 1, deleted: false, fields: { ...other, created_by: member } },
      // A report on P from one desktop, then P deleted by another that never had it (the central keeps both).
      { entity: 'warning', uuid: newUuid(), seq: 3, version: 1, deleted: false, fields: { poi_uuid: uuid, type: 'CLOSED', member_id: member, data: null, created_at: 1_700_000_000_000 } },
      { entity: 'poi', uuid, seq: 4, version: 2, deleted: true, fields: wire.fields },
      { entity: 'member', uuid: member, seq: 5, version: 2, deleted: true, fields },
    ];
    const state = () => ({
      aside: core.db.prepare('SELECT entity, reason FROM sync_set_aside').all(),
      reports: core.db.prepare('SELECT count(*) FROM warnings').pluck().get(),
      pois: core.db.prepare<[string], { name: string; created_by: string | null }>('SELECT name, created_by FROM pois WHERE client_id = ? ORDER BY name').all(clientId),
    });
    for (let run = 0; run < 2; run++) {
      const paged = new PagedApply(core.sideConnection!(), core.writes, core.clock, { sliceMs: 0, chunk: 1 });
      try {
        await paged.apply(clientId, page, () => new Set());
      } finally {
        paged.close();
      }
      // Before the page knew what it deletes, the second pass kept the report and the POI aside for ever.
      expect(state()).toEqual({ aside: [], reports: 0, pois: [{ name: 'By the member', created_by: null }] });
    }
    expect(core.sync.inbox.retry(clientId, new Set())).toBe(0);
  });

  it('gives the event loop back between slices, and commits the page before it resolves', async () => {
    const core = fileCore();
    const { clientId, rows } = scene(core, 2_000, 3_000);
    const paged = new PagedApply(core.sideConnection!(), core.writes, core.clock);
    let longestMs: number;
    try {
      ({ longestMs } = await longestHold(() => paged.apply(clientId, rows, () => new Set())));
    } finally {
      paged.close();
    }
    expect(core.db.prepare<[string], number>("SELECT count(*) FROM pois WHERE client_id = ? AND name LIKE 'New %'").pluck().get(clientId)).toBe(3_000);
    // In one go the page held it 1.0-1.2 s here; in slices, 41-45 ms at most (the page's commit).
    expect(longestMs).toBeLessThan(250);
  }, 60_000);
});
