import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../shared/activity.js';
import type { ChangeReply, PoiReply } from '../../shared/wire.js';
import { testCore } from '../support/core.js';

const core = testCore();
const dir = mkdtempSync(join(tmpdir(), 'poi-activity-'));
afterAll(() => {
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

type Page = { entries: ActivityEntry[]; next: number | null };
const activity = (clientId: string, input: Record<string, unknown> = {}): Page => core.console['changes.activity']({ clientId, limit: 50, ...input }) as Page;
const ofImport = (clientId: string, input: { importId: string } & Record<string, unknown>) => core.console['changes.ofImport']({ clientId, limit: 50, part: 'import', ...input }) as { changes: ChangeReply[]; next: number | null };

/** Every page of the activity list, `limit` entries a page, as the Older changes button walks it. */
function walk(clientId: string, limit: number, filter: Record<string, unknown> = {}): ActivityEntry[] {
  const all: ActivityEntry[] = [];
  for (let before: number | undefined, pages = 0; pages < 500; pages++) {
    const page = activity(clientId, { ...filter, limit, ...(before ? { before } : {}) });
    all.push(...page.entries);
    if (page.next === null) return all;
    before = page.next;
  }
  throw new Error('the pages did not end');
}

/** Imports `rows` new POIs (and one update of `update`) as the console does, as a job named by its file. */
async function importFile(clientId: string, rows: number, update: PoiReply): Promise<string> {
  const file = join(dir, `pois-${rows}.csv`);
  const lines = ['name,lat,lng,categories,uuid'];
  for (let i = 0; i < rows; i++) lines.push(`Place ${i},${(40 + i * 0.001).toFixed(4)},-3.7,2,`);
  lines.push(`Renamed by the import,40.5,-3.5,2,${update.uuid}`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  const job = await core.jobs.whenDone(core.startImport(clientId, { path: file, name: 'pois-98.csv', temporary: false }, 'csv', {}).id);
  expect(job).toMatchObject({ state: 'done', report: { added: rows, updated: 1 } });
  return job.id;
}

describe('the activity list, with imports', () => {
  it('shows an import as one entry (who, when, file, counts) on any paging, its POIs a page at a time, and its undo as one entry', async () => {
    const clientId = core.clients.create({ name: 'Imported 98' }).client_id;
    const before = (await core.console['pois.add']({ clientId, fields: { lat: 40.5, lng: -3.5, name: 'Before', categories: [2], geocode: false } })) as PoiReply;
    const importId = await importFile(clientId, 98, before);
    await core.console['pois.update']({ clientId, fields: { poi: before.id, phone: '+34 1' } });

    const first = activity(clientId);
    // Before: 50 entries, every one a change of the import (98 on two pages), each with its own Undo of the whole import.
    expect(first.entries.map((e) => (e.kind === 'change' ? `${e.change.entity} ${e.change.op} by ${e.change.actor.kind}` : e.kind))).toEqual([
      'poi update by console',
      'import',
      'poi create by console',
      'token create by console',
      'client create by console',
    ]);
    expect(first.next).toBeNull();
    expect(first.entries[1]).toEqual({
      kind: 'import',
      seq: expect.any(Number) as number,
      import: { id: importId, at: expect.any(String) as string, fileName: 'pois-98.csv', added: 98, updated: 1, categories: 0, changes: 99, undone: false },
    });

    // A page boundary anywhere never splits it, nor shows it twice.
    for (const limit of [1, 2, 3]) expect(walk(clientId, limit)).toEqual(first.entries);
    expect(activity(clientId, { actor: 'import' }).entries.map((e) => e.kind)).toEqual(['import']);
    expect(activity(clientId, { actor: 'console', entity: 'poi' }).entries.map((e) => e.kind)).toEqual(['change', 'change']);

    // Its POIs, on demand, newest first, in pages.
    const pages: ChangeReply[][] = [];
    for (let before: number | undefined; ; ) {
      const page = ofImport(clientId, { importId, limit: 40, ...(before ? { before } : {}) });
      pages.push(page.changes);
      if (page.next === null) break;
      before = page.next;
    }
    expect(pages.map((p) => p.length)).toEqual([40, 40, 19]);
    expect(new Set(pages.flat().map((c) => c.id)).size).toBe(99);
    expect(pages.flat().every((c) => c.actor.kind === 'import' && c.actor.id === importId)).toBe(true);
    expect(() => ofImport(clientId, { importId: 'no-such-import' })).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }) as Error);

    // Undone: the import says so, and its 99 reversals are one entry, not 99.
    await core.console['pois.update']({ clientId, fields: { poi: before.id, phone: null } });
    const undo = await core.jobs.whenDone((await core.console['imports.undo']({ clientId, importId })).id);
    expect(undo).toMatchObject({ state: 'done', report: { undone: 99 } });
    const after = activity(clientId);
    expect(after.entries.map((e) => e.kind)).toEqual(['import-undo', 'change', 'change', 'import', 'change', 'change', 'change']);
    expect(after.entries[0]).toMatchObject({ kind: 'import-undo', reversed: 99, import: { id: importId, undone: true } });
    expect(after.entries[3]).toMatchObject({ kind: 'import', import: { id: importId, undone: true } });
    for (const limit of [1, 4]) expect(walk(clientId, limit)).toEqual(after.entries);
    const reversals = ofImport(clientId, { importId, part: 'undo', limit: 200 }).changes;
    expect(reversals).toHaveLength(99);
    expect(reversals.every((c) => c.actor.kind === 'console' && c.undoes !== null)).toBe(true);

    // One of its POIs put back by hand (an undo of a reversal): no longer undone whole.
    const deleted = reversals.find((c) => c.op === 'delete')!;
    await core.console['changes.undo']({ clientId, seq: deleted.seq });
    expect(activity(clientId).entries.find((e) => e.kind === 'import')).toMatchObject({ import: { undone: false } });
  });
});
