import { comparedOf, sameValue, show, valueIn, type State, type Value } from './state.js';

/**
 * One field written by an acknowledged local change: what the desktop held before (its base) and
 * what it holds after. The checker reads both from the desktop's own file around each action, so
 * every kind of write (add, edit, delete, undo, import, register, rename...) is recorded the same
 * way. Values the checker writes are unique per write, so a value names its write.
 */
export interface Write {
  id: number;
  step: number;
  desktop: number;
  key: string;
  field: string;
  base: Value;
  value: Value;
  /** Made after the backup that a later restore on its desktop brought back, and not known to have reached the central: the restore may rightly have discarded it. */
  mayBeDiscarded?: boolean;
}

/** A conflict as the central keeps it, open or resolved, reduced to the values it holds. */
export interface ConflictValues {
  key: string;
  /** A conflict of a whole row (an edit against a delete) is given field by field, a delete as ABSENT. */
  field: string;
  values: Value[];
}

/** What the checker knows happened: every acknowledged write, in order. */
export class Oracle {
  readonly writes: Write[] = [];
  private next = 1;

  /** The writes of one local action on one desktop: every followed field that differs between before and after. */
  record(step: number, desktop: number, before: State, after: State): Write[] {
    const made: Write[] = [];
    for (const key of new Set([...before.keys(), ...after.keys()])) {
      for (const field of comparedOf(key)) {
        const base = valueIn(before, key, field);
        const value = valueIn(after, key, field);
        if (!sameValue(base, value)) made.push({ id: this.next++, step, desktop, key, field, base, value });
      }
    }
    this.writes.push(...made);
    return made;
  }

  /**
   * The invariant's first half: every acknowledged write is in the converged state, or was
   * knowingly replaced (another write whose base was its value: the writer saw it), or is held by
   * a conflict record of its row. Answers the writes that are none of these: lost.
   */
  lost(final: State, conflicts: readonly ConflictValues[]): string[] {
    const held = new Map<string, Value[]>();
    for (const c of conflicts) held.set(`${c.key} ${c.field}`, [...(held.get(`${c.key} ${c.field}`) ?? []), ...c.values]);
    const out: string[] = [];
    for (const w of this.writes) {
      if (w.mayBeDiscarded) continue;
      const now = valueIn(final, w.key, w.field);
      if (sameValue(now, w.value)) continue;
      // Replaced knowingly: another write based on its value. Values are unique per write, so a
      // write based on it saw it; the one exception is a value written twice (an undo restores an
      // old one), where sync, which compares values, cannot tell the two apart either (docs/sync.md:
      // an edit based on a value that came back applies without a conflict).
      if (this.writes.some((x) => x !== w && x.key === w.key && x.field === w.field && sameValue(x.base, w.value))) continue;
      if ((held.get(`${w.key} ${w.field}`) ?? []).some((v) => sameValue(v, w.value))) continue;
      out.push(`lost write #${w.id} (step ${w.step}, desktop ${w.desktop}): ${w.key} ${w.field} = ${show(w.value)} (was ${show(w.base)}); everywhere it is ${show(now)}, and no conflict holds it`);
    }
    return out;
  }
}
