import fc from 'fast-check';

/**
 * What a random history is made of. Each action names its desktop by a number taken modulo the
 * history's desktops, and the row it acts on by a number taken modulo the rows that desktop holds
 * at that moment, so every generated history runs whatever came before it (and shrinks well).
 */

/** POI fields an edit may set (lat and lng move together), and the optional ones it may empty. */
export const SETTABLE = ['name', 'description', 'position', 'elevation', 'accuracy', 'vaccuracy', 'phone', 'twitter', 'city', 'categories'] as const;
export const EMPTIABLE = ['description', 'elevation', 'accuracy', 'vaccuracy', 'phone', 'twitter', 'city'] as const;
export type Settable = (typeof SETTABLE)[number];
export type Emptiable = (typeof EMPTIABLE)[number];

/** A small pool of usernames, e-mails and category names, in several spellings, so that desktops apart clash on them. */
export const USERNAMES = ['fieldcarol', 'FieldCarol', 'surveybob', 'SurveyBob', 'mapperann1'] as const;
export const EMAILS = ['carol@example.org', 'Carol@Example.org', 'bob@example.org', 'ann@example.org'] as const;
export const CATEGORY_NAMES = ['Fountains', 'fountains', 'Benches', 'Kiosks', 'Bénches'] as const;

export type SyncFault = { kind: 'pass' } | { kind: 'down' } | { kind: 'cut'; after: number };

/**
 * How a hostile device tries to do harm: push changes in another device's name, write into
 * another client application, name a category that does not exist, push values the rules refuse.
 */
export const ATTACKS = ['foreign-ops', 'cross-client', 'poison-category', 'bad-values'] as const;
export type Attack = (typeof ATTACKS)[number];

export type Action =
  | { kind: 'add'; d: number; set: Settable[] }
  | { kind: 'update'; d: number; pick: number; set: Settable[]; empty: Emptiable[] }
  | { kind: 'delete'; d: number; pick: number }
  /** Fills in what the POI lacks (its empty fields, some of them): an edit no other field of the row sees. */
  | { kind: 'fill'; d: number; pick: number; some: number }
  | { kind: 'undo'; d: number; pick: number }
  | { kind: 'import'; d: number; n: number }
  | { kind: 'register'; d: number; name: number; mail: number }
  | { kind: 'password'; d: number; pick: number }
  | { kind: 'category'; d: number; name: number }
  | { kind: 'rename'; d: number; pick: number; name: number }
  | { kind: 'backup'; d: number }
  | { kind: 'restore'; d: number; pick: number }
  | { kind: 'sync'; d: number; fault: SyncFault }
  | { kind: 'policy'; manual: boolean }
  | { kind: 'attack'; how: Attack; d: number };

export interface History {
  desktops: number;
  actions: Action[];
}

const d = fc.nat(3);
const pick = fc.nat(50);
const settable = fc.subarray([...SETTABLE], { minLength: 1 });

const ALL: ReadonlyArray<{ weight: number; arbitrary: fc.Arbitrary<Action> }> = [
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('add' as const), d, set: settable }) },
  { weight: 10, arbitrary: fc.record({ kind: fc.constant('update' as const), d, pick, set: fc.subarray([...SETTABLE]), empty: fc.subarray([...EMPTIABLE], { maxLength: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), d, pick }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('fill' as const), d, pick, some: fc.nat(127) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('undo' as const), d, pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('import' as const), d, n: fc.integer({ min: 1, max: 5 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('register' as const), d, name: fc.nat(USERNAMES.length - 1), mail: fc.nat(EMAILS.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('password' as const), d, pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('category' as const), d, name: fc.nat(CATEGORY_NAMES.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rename' as const), d, pick, name: fc.nat(CATEGORY_NAMES.length - 1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('backup' as const), d }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('restore' as const), d, pick }) },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('sync' as const),
      d,
      fault: fc.oneof(
        { weight: 8, arbitrary: fc.constant({ kind: 'pass' as const }) },
        { weight: 1, arbitrary: fc.constant({ kind: 'down' as const }) },
        { weight: 2, arbitrary: fc.record({ kind: fc.constant('cut' as const), after: fc.nat(4) }) },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('policy' as const), manual: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('attack' as const), how: fc.constantFrom(...ATTACKS), d }) },
];

export const ACTION_KINDS = ['add', 'update', 'delete', 'fill', 'undo', 'import', 'register', 'password', 'category', 'rename', 'backup', 'restore', 'sync', 'policy', 'attack'] as const satisfies ReadonlyArray<Action['kind']>;

export interface HistoryOptions {
  maxActions?: number;
  /** Leave these kinds of action out (to look at one finding at a time). */
  without?: ReadonlyArray<Action['kind']>;
}

export function history({ maxActions = 40, without = [] }: HistoryOptions = {}): fc.Arbitrary<History> {
  // Each entry's kind is the constant of its record: read it from one generated value.
  const kept = ALL.filter((entry) => !without.includes(fc.sample(entry.arbitrary, 1)[0]!.kind));
  return fc.record({ desktops: fc.integer({ min: 2, max: 4 }), actions: fc.array(fc.oneof(...kept), { minLength: 4, maxLength: maxActions }) });
}
