import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { argon2Hasher } from '../../main/core/members/passwords.js';
import { ServiceError } from '../../main/core/errors.js';
import { dispatch } from '../../main/core/console/dispatch.js';
import { ERRORS, type ErrorCode } from '../../shared/errors.js';
import type { Input, OpName } from '../../shared/contract.js';
import { centralConflicts, syncOnce, type SyncTarget } from '../../main/sync-client/client.js';
import { resolveConflict, type Choice } from '../../main/sync-client/resolve.js';
import type { ConflictReply, PushedChange } from '../../shared/sync.js';
import { addPoiInput } from '../../shared/schemas/pois.js';
import { POI_FIELDS } from '../../shared/poi-fields.js';
import { openCore, type OpenCore } from '../support/core.js';
import { CATEGORY_NAMES, EMAILS, EMPTIABLE, USERNAMES, type Action, type Attack, type History, type Settable } from './actions.js';
import { Oracle, type ConflictValues } from './oracle.js';
import { ABSENT, centralState, comparedOf, desktopState, differences, keyOf, sameValue, show, valueIn, type State, type Value } from './state.js';
import type { World } from './world.js';

/** A cheap argon2id: the checker registers and changes passwords by the hundred. */
const FAST_HASHER = argon2Hasher({ algorithm: 2, memoryCost: 256, timeCost: 1, parallelism: 1 });

/**
 * A console operation as the UI sends it: through the one entry that validates its input
 * (main/core/console/dispatch.ts), a refusal thrown as the ServiceError it answered.
 */
async function invoke<K extends OpName>(core: OpenCore, op: K, input: Input<K>): Promise<unknown> {
  const answer = await dispatch(core.console, op, input);
  if (answer.ok) return answer.value;
  const code = (Object.keys(ERRORS) as ErrorCode[]).find((c) => ERRORS[c].description === answer.error.description) ?? 'INTERNAL';
  throw new ServiceError(code, answer.error.message ?? answer.error.description);
}

/** Refusals a local action may meet in a random history (a taken name, an undo of a changed POI...): they write nothing. */
const EXPECTED_REFUSALS = new Set(['ALREADY_EXISTS', 'CONFLICT', 'NOT_FOUND', 'INVALID_CREDENTIALS', 'INVALID_PARAMETER', 'MISSING_PARAMETER']);

interface Desktop {
  i: number;
  dir: string;
  core: OpenCore;
  target: SyncTarget;
  deviceId: string;
  backups: Array<{ name: string; step: number }>;
  /** The last step at which a sync of this desktop completed: every write before it reached the central. */
  syncedAt: number;
  /** The last step at which something of the client may have changed on the central other than by this desktop. */
  restoredAt: number;
}

export interface Outcome {
  violations: string[];
  steps: number;
  writes: number;
  conflicts: number;
  syncs: number;
}

/** One history run against real desktops (real cores on SQLite files) and the world's central. */
export async function runHistory(world: World, history: History): Promise<Outcome> {
  const run = new Run(world, history);
  try {
    return await run.go();
  } finally {
    run.close();
  }
}

class Run {
  private readonly oracle = new Oracle();
  private readonly desktops: Desktop[] = [];
  private readonly violations: string[] = [];
  private readonly passwords = new Map<string, string[]>();
  /** Rows a hostile device pushed: the oracle follows acknowledged desktop writes, not theirs. */
  private readonly hostile = new Set<string>();
  private clientId = '';
  /** Client Y: held on desktop 0 beside X, never synced; nothing of X's sync may touch it. */
  private other = '';
  private otherBefore: State = new Map();
  private rogue: SyncTarget | undefined;
  private stranger: SyncTarget | undefined;
  private counter = 0;
  private step = 0;
  private syncs = 0;
  /** The step of the last event that may have changed the client's rows on the central, by desktop. */
  private readonly foreignChangeAt: number[] = [];

  constructor(
    private readonly world: World,
    private readonly history: History,
  ) {}

  close(): void {
    for (const d of this.desktops) {
      d.core.close();
      rmSync(d.dir, { recursive: true, force: true });
    }
  }

  async go(): Promise<Outcome> {
    await this.setUp();
    for (const action of this.history.actions) {
      this.step++;
      await this.act(action);
    }
    this.step++;
    // Every check runs whatever came before it (a violation mid-history does not hide a later one), unless a desktop is stuck.
    if (await this.quiesce('after the history')) {
      const before = this.violations.length;
      await this.checkConverged('after the history', true);
      if (this.violations.length === before) await this.resolveAll();
    }
    const conflicts = (await this.world.pool.query<{ n: string }>('SELECT count(*) AS n FROM conflicts WHERE client_id = $1', [this.clientId])).rows[0]!.n;
    return { violations: this.violations, steps: this.step, writes: this.oracle.writes.length, conflicts: Number(conflicts), syncs: this.syncs };
  }

  private async setUp(): Promise<void> {
    for (let i = 0; i < this.history.desktops; i++) {
      const dir = mkdtempSync(join(tmpdir(), `poi-checker-${i}-`));
      const core = openCore({ file: join(dir, 'poi.sqlite'), passwords: FAST_HASHER });
      this.desktops.push({ i, dir, core, target: { url: '', credential: '' }, deviceId: '', backups: [], syncedAt: -1, restoredAt: 0 });
      this.foreignChangeAt.push(0);
    }
    const first = this.desktops[0]!;
    this.clientId = first.core.clients.create({ name: `Checker ${randomUUID().slice(0, 8)}` }).client_id;
    for (const d of this.desktops) {
      const device = await this.world.devices.add(this.clientId, `desktop ${d.i}`, 'checker');
      this.world.proxies[d.i]!.set({ kind: 'pass' });
      d.target = { url: this.world.proxies[d.i]!.url, credential: device.credential };
      d.deviceId = device.device_id;
    }
    // Client Y beside X on desktop 0, with a member and a POI a hostile push could try to reach.
    this.other = first.core.clients.create({ name: 'Other client' }).client_id;
    await invoke(first.core, 'members.register', { clientId: this.other, fields: { username: 'othermember', pwd: 'other-secret', email: 'other@example.org' } });
    await invoke(first.core, 'pois.add', { clientId: this.other, fields: { name: 'Other POI', lat: 1, lng: 1, categories: [1], geocode: false } });
    this.otherBefore = desktopState(first.core.db, this.other);
    this.rogue = { url: this.world.central, credential: (await this.world.devices.add(this.clientId, 'rogue device of X')).credential };
    this.stranger = { url: this.world.central, credential: (await this.world.devices.add(randomUUID(), 'device of another client', 'Stranger')).credential };
  }

  private desktop(n: number): Desktop {
    return this.desktops[n % this.desktops.length]!;
  }

  private has(d: Desktop): boolean {
    return d.core.clients.find(this.clientId) !== undefined;
  }

  private unique(): number {
    return ++this.counter;
  }

  private async act(a: Action): Promise<void> {
    switch (a.kind) {
      case 'sync':
        return this.sync(this.desktop(a.d), a.fault);
      case 'policy':
        await this.world.pool.query('UPDATE clients SET conflict_policy = $1 WHERE id = $2', [a.manual ? 'manual' : 'last-writer-wins', this.clientId]);
        return;
      case 'attack':
        return this.attack(a.how, this.desktop(a.d));
      case 'backup': {
        const d = this.desktop(a.d);
        const info = (await invoke(d.core, 'backups.create', {})) as { name: string };
        d.backups.push({ name: info.name, step: this.step });
        return;
      }
      case 'restore':
        return this.restore(this.desktop(a.d), a.pick);
      default:
        return this.local(this.desktop(a.d), a);
    }
  }

  /** A local action: the desktop's state read before and after, every changed field recorded as an acknowledged write. */
  private async local(d: Desktop, a: Exclude<Action, { kind: 'sync' | 'policy' | 'attack' | 'backup' | 'restore' }>): Promise<void> {
    if (!this.has(d)) return;
    const before = desktopState(d.core.db, this.clientId);
    try {
      await this.perform(d, a);
    } catch (error) {
      if (!(error instanceof ServiceError && EXPECTED_REFUSALS.has(error.code))) throw error;
      const after = desktopState(d.core.db, this.clientId);
      const changed = differences(before, after, 'before', 'after');
      if (changed.length > 0) this.violations.push(`step ${this.step}: a refused ${a.kind} (${error.message}) changed data: ${changed.join('; ')}`);
      return;
    }
    this.oracle.record(this.step, d.i, before, desktopState(d.core.db, this.clientId));
  }

  private async perform(d: Desktop, a: Exclude<Action, { kind: 'sync' | 'policy' | 'attack' | 'backup' | 'restore' }>): Promise<void> {
    const clientId = this.clientId;
    const c = <K extends OpName>(op: K, input: Input<K>): Promise<unknown> => invoke(d.core, op, input);
    const poiIds = (): number[] => d.core.db.prepare<[string], number>('SELECT id FROM pois WHERE client_id = ? ORDER BY id').pluck().all(clientId);
    // Half the picks go to the first two POIs, so that desktops apart edit the same ones (conflicts) often enough.
    const chosen = <T>(list: readonly T[], pick: number): T => list[pick < 25 ? pick % Math.min(list.length, 2) : pick % list.length]!;
    switch (a.kind) {
      case 'add': {
        const fields = this.poiFields(d, a.set);
        const [lat, lng] = this.position(this.unique());
        await c('pois.add', { clientId, fields: { name: `N${this.unique()}`, lat, lng, categories: [1], ...fields, geocode: false } });
        return;
      }
      case 'update': {
        const ids = poiIds();
        if (ids.length === 0) return;
        const fields: Record<string, unknown> = { ...this.poiFields(d, a.set) };
        for (const f of a.empty) fields[f === 'description' ? 'desc' : f] = null;
        if (Object.keys(fields).length === 0) return;
        await c('pois.update', { clientId, fields: { poi: chosen(ids, a.pick), ...fields, geocode: false } });
        return;
      }
      case 'fill': {
        const ids = poiIds();
        if (ids.length === 0) return;
        const id = chosen(ids, a.pick);
        const row = d.core.db.prepare<[number], Record<string, unknown>>('SELECT * FROM pois WHERE id = ?').get(id)!;
        const empty = EMPTIABLE.filter((f) => row[f] === null);
        // A non-empty subset of the empty fields, chosen by the bits of `some`.
        const filled = empty.filter((_, i) => ((a.some >> i) & 1) === 1 || i === a.some % empty.length);
        if (filled.length === 0) return;
        await c('pois.update', { clientId, fields: { poi: id, ...this.poiFields(d, filled), geocode: false } });
        return;
      }
      case 'delete': {
        const ids = poiIds();
        if (ids.length > 0) await c('pois.delete', { clientId, poi: chosen(ids, a.pick) });
        return;
      }
      case 'undo': {
        const seqs = d.core.db
          .prepare<[string], number>("SELECT max(seq) FROM changes WHERE client_id = ? AND poi_id IS NOT NULL AND entity = 'poi' GROUP BY poi_id ORDER BY poi_id")
          .pluck()
          .all(clientId);
        if (seqs.length > 0) await c('changes.undo', { clientId, seq: seqs[a.pick % seqs.length]! });
        return;
      }
      case 'import': {
        const features = Array.from({ length: a.n }, () => {
          const k = this.unique();
          return { type: 'Feature', geometry: { type: 'Point', coordinates: this.position(k).reverse() }, properties: { name: `I${k}`, phone: `+${k}`, categories: [1] } };
        });
        await d.core.importPois(clientId, Readable.from([JSON.stringify({ type: 'FeatureCollection', features })]), 'geojson');
        return;
      }
      case 'register': {
        const pwd = `pw${this.unique()}secret`;
        const reply = (await c('members.register', { clientId, fields: { username: USERNAMES[a.name]!, pwd, email: EMAILS[a.mail]! } })) as { id: string };
        this.passwords.set(reply.id, [pwd]);
        return;
      }
      case 'password': {
        const members = d.core.db.prepare<[string], string>('SELECT id FROM members WHERE client_id = ? ORDER BY id').pluck().all(clientId);
        if (members.length === 0) return;
        const id = members[a.pick % members.length]!;
        const pwd = `pw${this.unique()}secret`;
        for (const old of [...(this.passwords.get(id) ?? [])].reverse()) {
          try {
            await c('members.update', { clientId, memberId: id, fields: { pwd, oldpwd: old } });
            this.passwords.set(id, [...(this.passwords.get(id) ?? []), pwd]);
            return;
          } catch (error) {
            if (!(error instanceof ServiceError && error.code === 'INVALID_CREDENTIALS')) throw error;
          }
        }
        return;
      }
      case 'category':
        await c('categories.add', { clientId, desc: CATEGORY_NAMES[a.name]! });
        return;
      case 'rename': {
        const ids = d.core.db.prepare<[string], number>('SELECT id FROM categories WHERE client_id = ? AND deleted_at IS NULL ORDER BY id').pluck().all(clientId);
        if (ids.length > 0) await c('categories.update', { clientId, category: ids[a.pick % ids.length]!, desc: CATEGORY_NAMES[a.name]! });
        return;
      }
    }
  }

  /** Unique values for the chosen fields: a value names its write. */
  private poiFields(d: Desktop, set: readonly Settable[]): Record<string, unknown> {
    const fields: Record<string, unknown> = {};
    for (const f of set) {
      const k = this.unique();
      if (f === 'name') fields.name = `N${k}`;
      else if (f === 'description') fields.desc = `D${k}`;
      else if (f === 'position') [fields.lat, fields.lng] = this.position(k);
      else if (f === 'elevation') fields.elevation = k;
      else if (f === 'accuracy') fields.accuracy = k + 0.5;
      else if (f === 'vaccuracy') fields.vaccuracy = k + 0.25;
      else if (f === 'phone') fields.phone = `+${k}`;
      else if (f === 'twitter') fields.twitter = `t${k}`;
      else if (f === 'city') fields.city = `C${k}`;
      else {
        const own = d.core.db.prepare<[string], number>('SELECT id FROM categories WHERE client_id = ? AND deleted_at IS NULL').pluck().all(this.clientId);
        const choices = [1, 2, 3, ...own];
        fields.categories = choices.filter((_, i) => ((k >> i) & 1) === 1 || i === k % choices.length);
      }
    }
    return fields;
  }

  private position(k: number): [number, number] {
    return [-80 + k * 0.0001, -170 + k * 0.001];
  }

  private async sync(d: Desktop, fault: { kind: 'pass' } | { kind: 'down' } | { kind: 'cut'; after: number }): Promise<void> {
    this.world.proxies[d.i]!.set(fault);
    this.syncs++;
    const since = d.syncedAt;
    const othersChangedSince = this.foreignChangeAt[d.i]! > since || d.restoredAt > since;
    try {
      const report = await syncOnce(d.core, d.target);
      // Honest counts: with nothing new from anyone else since its last sync, a desktop receives nothing (its own rows coming back are not news).
      if (since >= 0 && !othersChangedSince && report.conflicts === 0 && report.pulled > 0) {
        this.violations.push(`step ${this.step}: desktop ${d.i} reported ${report.pulled} rows received, though nothing changed elsewhere since its last sync (it pushed ${report.pushed})`);
      }
      d.syncedAt = this.step;
    } catch (error) {
      // A sync broken on purpose fails; one that was not broken must not.
      if (fault.kind === 'pass') this.violations.push(`step ${this.step}: desktop ${d.i}'s sync failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.world.proxies[d.i]!.set({ kind: 'pass' });
    }
    // Whatever it pushed (even when the answer was lost) may be news for the others.
    for (const other of this.desktops) if (other !== d) this.foreignChangeAt[other.i] = this.step;
  }

  private async restore(d: Desktop, pick: number): Promise<void> {
    if (d.backups.length === 0) return;
    const backup = d.backups[pick % d.backups.length]!;
    // A restore is a job: the history goes on once it has replaced the data.
    const job = (await invoke(d.core, 'backups.restore', { name: backup.name })) as { id: string };
    const ended = await d.core.jobs.whenDone(job.id);
    if (ended.state !== 'done') throw new Error(`desktop ${d.i}'s restore ended ${ended.state}: ${ended.error}`);
    // What was written after the backup and had not reached the central is what a restore rightly takes back.
    for (const w of this.oracle.writes) if (w.desktop === d.i && w.step > backup.step && w.step > d.syncedAt) w.mayBeDiscarded = true;
    d.restoredAt = this.step;
  }

  /** A device pushing by hand what no honest desktop sends. */
  private async attack(how: Attack, victim: Desktop): Promise<void> {
    const push = async (target: SyncTarget, changes: PushedChange[]): Promise<void> => {
      await fetch(new URL('/sync/push', target.url), { method: 'POST', headers: { authorization: `Bearer ${target.credential}`, 'content-type': 'application/json' }, body: JSON.stringify({ changes }) }).then((r) => r.arrayBuffer());
    };
    const at = Date.now();
    const poiCreate = (uuid: string, fields: Record<string, Value>): PushedChange => ({
      op: `${this.rogue!.credential.split('.')[0]}:${randomUUID()}`,
      entity: 'poi',
      uuid,
      kind: 'create',
      fields: Object.fromEntries(Object.entries(fields).map(([f, v]) => [f, [null, v as string | number | null]])),
      at,
    });
    const valid = { name: 'Rogue', lat: 5, lng: 5, categories: ['system:1'], registered_at: at };
    if (how === 'foreign-ops') {
      // Operation ids in the victim's name, for the seqs its log will hand out next.
      const next = Number(victim.core.db.prepare('SELECT coalesce(max(seq), 0) FROM changes').pluck().get()) + 1;
      const own = randomUUID();
      const strangerCreate = { ...poiCreate(own, valid), op: `${this.stranger!.credential.split('.')[0]}:${randomUUID()}` };
      const changes = [strangerCreate, ...Array.from({ length: 40 }, (_, i): PushedChange => ({ op: `${victim.deviceId}:${next + i}`, entity: 'poi', uuid: own, kind: 'update', fields: { name: ['Rogue', 'Rogue'] }, at }))];
      await push(this.stranger!, changes);
      return;
    }
    // The rest are pushed by a device of X itself: what it pushes is X's, so the others will pull it.
    for (const d of this.desktops) this.foreignChangeAt[d.i] = this.step;
    if (how === 'cross-client') {
      const first = this.desktops[0]!;
      const member = first.core.db.prepare<[string], string>('SELECT id FROM members WHERE client_id = ?').pluck().get(this.other)!;
      const poi = first.core.db.prepare<[string], string>('SELECT uuid FROM pois WHERE client_id = ?').pluck().get(this.other)!;
      const hash = await FAST_HASHER.hash('attacker-password');
      this.hostile.add(keyOf('member', member)).add(keyOf('poi', poi));
      await push(this.rogue!, [
        {
          op: `${this.rogue!.credential.split('.')[0]}:${randomUUID()}`,
          entity: 'member',
          uuid: member,
          kind: 'create',
          fields: { username: [null, 'roguemember'], email: [null, 'rogue@example.org'], pwd_hash: [null, hash], gender: [null, 'UNDEFINED'], email_verified: [null, 0], registered_at: [null, at] },
          at,
        },
        poiCreate(poi, { ...valid, name: 'Taken over' }),
      ]);
    } else if (how === 'poison-category') {
      const uuid = randomUUID();
      this.hostile.add(keyOf('poi', uuid));
      await push(this.rogue!, [poiCreate(uuid, { ...valid, categories: ['system:99999'] })]);
    } else {
      const uuid = randomUUID();
      this.hostile.add(keyOf('poi', uuid));
      await push(this.rogue!, [poiCreate(uuid, { ...valid, name: '', phone: 'x'.repeat(5000), accuracy: -5 })]);
    }
  }

  /** Every desktop syncs in turn, without faults, until a round moves nothing; a sync that fails now is stuck (answers false). */
  private async quiesce(when: string): Promise<boolean> {
    for (let round = 0; round < 6; round++) {
      let moved = false;
      for (const d of this.desktops) {
        this.world.proxies[d.i]!.set({ kind: 'pass' });
        try {
          const r = await syncOnce(d.core, d.target);
          this.syncs++;
          d.syncedAt = this.step;
          moved ||= r.pushed > 0 || r.pulled > 0;
        } catch (error) {
          this.violations.push(`${when}: desktop ${d.i} cannot sync: ${error instanceof Error ? error.message : String(error)}`);
          return false;
        }
      }
      if (!moved) return true;
    }
    this.violations.push(`${when}: the desktops did not settle in 6 rounds of syncs`);
    return true;
  }

  /** The rows no desktop can hold, with their reason (none in a build from before set-aside rows). */
  private setAside(d: Desktop): Set<string> {
    const aside = new Set([...this.hostile]);
    try {
      const rows = d.core.db.prepare<[string], { entity: string; uuid: string }>('SELECT entity, uuid FROM sync_set_aside WHERE client_id = ?').all(this.clientId);
      for (const r of rows) aside.add(keyOf(r.entity, r.uuid));
    } catch {
      // A build without set-aside rows: none.
    }
    return aside;
  }

  private async checkConverged(when: string, writes: boolean): Promise<State> {
    const central = await centralState(this.world.pool, this.clientId);
    for (const d of this.desktops) {
      const local = desktopState(d.core.db, this.clientId);
      const diff = differences(central, local, 'the central', `desktop ${d.i}`, this.setAside(d));
      if (diff.length > 0) this.violations.push(`${when}: desktop ${d.i} differs from the central: ${diff.join('; ')}`);
      for (const [key, row] of local) {
        if (!key.startsWith('poi:')) continue;
        const wire = Object.fromEntries(POI_FIELDS.map((f) => [f.wire, row[f.column] ?? undefined]));
        const checked = addPoiInput.safeParse({ ...wire, categories: [1] });
        if (!checked.success) this.violations.push(`${when}: desktop ${d.i} holds ${key}, which the API's rules refuse: ${checked.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
      }
    }
    const first = this.desktops[0]!;
    const other = differences(this.otherBefore, desktopState(first.core.db, this.other), 'before', 'now');
    if (other.length > 0) this.violations.push(`${when}: client Y, never synced, changed on desktop 0: ${other.join('; ')}`);
    if (writes) this.violations.push(...this.oracle.lost(central, await this.conflictValues()));
    return central;
  }

  /** Every conflict of the client, open or resolved, as the values it holds field by field. */
  private async conflictValues(): Promise<ConflictValues[]> {
    const { rows } = await this.world.pool.query<{ entity: string; entity_uuid: string; field: string | null; base: unknown; mine: unknown; theirs: unknown }>(
      'SELECT entity, entity_uuid::text, field, base, mine, theirs FROM conflicts WHERE client_id = $1',
      [this.clientId],
    );
    const out: ConflictValues[] = [];
    for (const c of rows) {
      const key = keyOf(c.entity, c.entity_uuid);
      const sides = [c.base, c.mine, c.theirs];
      if (c.field !== null) {
        // A category's deletion is its deleted_at; the checker follows it as a flag.
        if (c.field === 'deleted_at') out.push({ key, field: 'deleted', values: sides.map((v) => (v === null ? 0 : 1)) });
        else out.push({ key, field: c.field, values: sides.map((v) => normal(c.field!, v)) });
        continue;
      }
      for (const field of comparedOf(key)) {
        out.push({ key, field, values: sides.flatMap((side) => (side === 'deleted' ? [ABSENT] : typeof side === 'object' && side !== null && field in side ? [normal(field, (side as Record<string, unknown>)[field])] : [])) });
      }
    }
    return out;
  }

  /** A clash resolved from some desktop: one of the two rows renamed, or the two merged (the dropped one deleted). */
  private async resolveClash(c: ConflictReply, expected: Map<string, { value: Value; id: number }>): Promise<boolean> {
    const holders = this.desktops.filter((d) => this.has(d));
    const resolver = holders[(c.id + this.step) % holders.length]!;
    const field = c.field!;
    const k = this.unique();
    let choice: Choice;
    if ((c.id + k) % 2 === 0) {
      const uuid = k % 2 === 0 ? c.uuid : c.other_uuid!;
      const to = field === 'username' ? `renamed${k}` : field === 'email' ? `renamed${k}@example.org` : `Renamed ${k}`;
      choice = { rename: { uuid, to } };
      expected.set(`${keyOf(c.entity, uuid)} ${field}`, { value: to, id: c.id });
    } else {
      const [keep, drop] = k % 2 === 0 ? [c.uuid, c.other_uuid!] : [c.other_uuid!, c.uuid];
      choice = { merge: { keep, drop } };
      if (c.entity === 'category') expected.set(`${keyOf('category', drop)} deleted`, { value: 1, id: c.id });
      else expected.set(`${keyOf(c.entity, drop)} *`, { value: ABSENT, id: c.id });
    }
    try {
      this.world.proxies[resolver.i]!.set({ kind: 'pass' });
      await resolveConflict(resolver.core, resolver.target, c.id, choice);
      return true;
    } catch (error) {
      this.violations.push(`resolving clash ${c.id} (${c.entity} ${field}) from desktop ${resolver.i} with ${JSON.stringify(choice)} failed: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }

  /**
   * Resolves every open conflict from a desktop that is one of its sides, keeping one side at
   * random, then syncs everything: the state must converge, hold each choice, and leave no
   * conflict open.
   */
  private async resolveAll(): Promise<void> {
    const expected = new Map<string, { value: Value; id: number; fields?: Record<string, Value> }>();
    const resolvedWrites: Array<{ key: string; field: string; value: Value; desktop: number }> = [];
    for (let guard = 0; guard < 50; guard++) {
      const open = await centralConflicts(this.desktops[0]!.target).catch(() => []);
      if (open.length === 0) break;
      const c = open[0]!;
      const key = keyOf(c.entity, c.uuid);
      if (c.kind === 'clash') {
        if (!(await this.resolveClash(c, expected))) return;
        continue;
      }
      const pusher = this.desktops.find((d) => d.deviceId === c.device);
      // The side that was on the central before: written by the desktop whose write holds that value.
      const theirsField = c.field ?? comparedOf(key)[0]!;
      const theirValue = c.theirs === 'deleted' ? ABSENT : c.field === null ? normal(theirsField, (c.theirs as Record<string, unknown>)[theirsField]) : normal(theirsField, c.theirs);
      // A value a resolution wrote is the resolver's on the central, whoever first wrote it.
      const matches = (w: { key: string; field: string; value: Value }): boolean => w.key === key && w.field === theirsField && sameValue(w.value, theirValue);
      const writer = resolvedWrites.findLast(matches) ?? this.oracle.writes.findLast(matches);
      const candidates = [pusher, writer === undefined ? undefined : this.desktops[writer.desktop]].filter((d): d is Desktop => d !== undefined && this.has(d));
      const keepMine = (c.id + this.step) % 2 === 0;
      let resolver = candidates[(c.id + this.counter) % Math.max(candidates.length, 1)];
      let keptSide: unknown;
      let choice: Choice;
      if (resolver) {
        // "mine" is the resolving desktop's own side: the pushed value when it pushed, else the central's earlier one.
        keptSide = keepMine === (resolver.deviceId === c.device) ? c.mine : c.theirs;
        choice = { keep: keepMine ? 'mine' : 'theirs' };
      } else {
        // Neither side is a desktop's (a hostile device's rows): a side by where it stands.
        resolver = this.desktops.find((d) => this.has(d)) ?? this.desktops[0]!;
        keptSide = keepMine ? c.mine : c.theirs;
        choice = { keep: keepMine ? 'pushed' : 'earlier' };
      }
      const holdsBefore = c.field === null ? undefined : valueIn(await centralState(this.world.pool, this.clientId), key, c.field);
      try {
        this.world.proxies[resolver.i]!.set({ kind: 'pass' });
        await resolveConflict(resolver.core, resolver.target, c.id, choice);
      } catch (error) {
        this.violations.push(`resolving conflict ${c.id} (${key} ${c.field ?? 'edit against delete'}) from desktop ${resolver.i} failed: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      // Only a value the resolution changed becomes the resolver's (one already there keeps its writer).
      if (c.field !== null && !sameValue(holdsBefore, normal(c.field, keptSide))) resolvedWrites.push({ key, field: c.field, value: normal(c.field, keptSide), desktop: resolver.i });
      // A category's deletion is followed as a flag.
      if (c.entity === 'category' && c.field === 'deleted_at') expected.set(`${key} deleted`, { value: keptSide === null ? 0 : 1, id: c.id });
      else if (c.field !== null) expected.set(`${key} ${c.field}`, { value: normal(c.field, keptSide), id: c.id });
      else if (keptSide === 'deleted') expected.set(`${key} *`, { value: ABSENT, id: c.id });
      else expected.set(`${key} *`, { value: 'present', id: c.id, fields: Object.fromEntries(Object.entries(keptSide as Record<string, unknown>).map(([f, v]) => [f, normal(f, v)])) });
    }
    this.step++;
    if (!(await this.quiesce('after resolving'))) return;
    const central = await this.checkConverged('after resolving', false);
    const left = await centralConflicts(this.desktops[0]!.target);
    if (left.length > 0) this.violations.push(`after resolving: ${left.length} conflicts open (resolving made new ones: ${left.map((c) => `${c.entity} ${c.uuid} ${c.field ?? 'row'}`).join(', ')})`);
    for (const [where, want] of expected) {
      const [key, field] = where.split(' ') as [string, string];
      if (field === '*') {
        const present = central.has(key);
        if (want.value === ABSENT && present) this.violations.push(`conflict ${want.id}: the delete was kept, yet ${key} is still there`);
        if (want.value !== ABSENT && !present) this.violations.push(`conflict ${want.id}: the edit was kept, yet ${key} is deleted everywhere`);
        continue;
      }
      // A field of a row whose delete was kept (in its own conflict) has nothing left to hold.
      if (!central.has(key) && expected.get(`${key} *`)?.value === ABSENT) continue;
      const now = valueIn(central, key, field);
      if (!sameValue(now, want.value)) this.violations.push(`conflict ${want.id}: ${key} ${field} was resolved to ${show(want.value)} by keeping one side, yet everywhere it is ${show(now)}`);
    }
  }
}

/** A value from a conflict record in the checker's representation (category lists sorted, booleans as 0/1). */
function normal(_field: string, v: unknown): Value {
  if (Array.isArray(v)) return [...(v as string[])].sort();
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === undefined) return null;
  return v as Value;
}
