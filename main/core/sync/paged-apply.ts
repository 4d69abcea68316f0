import type { Database } from 'better-sqlite3';
import type { PulledRow } from '../../../shared/sync.js';
import type { Clock } from '../clock.js';
import { PoiStore } from '../pois/poi-store.js';
import { LongWrite } from '../store/long-write.js';
import { SYNC, type WritePath } from '../store/write-path.js';
import { constraintFailure, SyncInbox, type PageRules } from './inbox.js';
import { LocalRows } from './local-rows.js';
import { CategoryRefs } from './refs.js';
import { SetAside } from './set-aside.js';

/** How long one slice of a page may hold the event loop (the ~10 ms every long work keeps to). */
const SLICE_MS = 8;
/** Rows applied between two looks at the clock. */
const CHUNK = 50;

export interface Slicing {
  sliceMs?: number;
  /** Tests make both small, to see many slices in a few rows. */
  chunk?: number;
}

/**
 * A pull's pages applied a slice at a time, so that the app answers between two: 5,000 rows in
 * one synchronous transaction held the event loop about half a second. The slices go into one
 * transaction on a connection of its own (store/long-write.ts), committed when the page ends,
 * every second, and whenever a write of the app is about to begin.
 *
 * What a local write between two slices changes is never overwritten: the rows changed here and
 * not pushed (`pendingOf`) are read again at the start of every transaction, when nothing else
 * can write until its commit. A constraint the fast path did not foresee rolls back what was not
 * committed, and the page is applied again, each row in a savepoint (rows already committed
 * apply again as they are: a page applied twice changes nothing, inbox.ts).
 */
export class PagedApply {
  private readonly long: LongWrite;
  private readonly inbox: SyncInbox;

  constructor(
    side: Database,
    main: WritePath,
    clock: Clock,
    private readonly slicing: Slicing = {},
  ) {
    this.long = new LongWrite(side, main, () => clock.now());
    try {
      const refs = new CategoryRefs(side);
      this.inbox = new SyncInbox(side, this.long.path, clock, new PoiStore(side), refs, new LocalRows(side, refs), new SetAside(side, clock));
    } catch (error) {
      this.long.close();
      throw error;
    }
  }

  /** One page, committed before it resolves; answers how many rows were set aside. */
  async apply(clientId: string, rows: readonly PulledRow[], pendingOf: () => ReadonlySet<string>): Promise<number> {
    try {
      return await this.slices(clientId, rows, pendingOf, false);
    } catch (error) {
      if (constraintFailure(error) === undefined) throw error;
      return this.slices(clientId, rows, pendingOf, true);
    }
  }

  close(): void {
    this.long.close();
  }

  private async slices(clientId: string, rows: readonly PulledRow[], pendingOf: () => ReadonlySet<string>, careful: boolean): Promise<number> {
    const rules = (): PageRules => ({ ...this.inbox.rules(clientId, rows, careful), pending: pendingOf() });
    let page = rules();
    let setAside = 0;
    for (let next = 0; next < rows.length; ) {
      // A backup running pauses long writers (backups.ts).
      await this.long.mayGo();
      this.long.run(
        SYNC,
        () => {
          const started = performance.now();
          const { sliceMs = SLICE_MS, chunk = CHUNK } = this.slicing;
          do {
            const end = Math.min(rows.length, next + chunk);
            setAside += this.inbox.applyRows(clientId, rows.slice(next, end), page);
            next = end;
          } while (next < rows.length && performance.now() - started < sliceMs);
        },
        // Read inside each transaction: nothing else writes until it commits.
        () => (page = rules()),
      );
      this.long.commitIfDue();
      if (next < rows.length) await new Promise((resolve) => setImmediate(resolve));
    }
    this.long.commit();
    return setAside;
  }
}
