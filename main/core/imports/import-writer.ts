import type { Database } from 'better-sqlite3';
import type { ValidAddPoi } from '../../../shared/schemas/pois.js';
import { Categories } from '../categories/categories.js';
import { GeocodedFields } from '../changes/geocoded-fields.js';
import type { SourcedAddress } from '../geocode/geocoder.js';
import { PoiStore } from '../pois/poi-store.js';
import { Pois } from '../pois/pois.js';
import type { Services } from '../services.js';
import { LongWrite } from '../store/long-write.js';
import type { Actor } from '../store/write-path.js';
import { WarningStore } from '../warnings/warnings.js';

/** Where an import's new rows go, and what it reads back (its possible duplicates) to see them. */
export interface ImportWriter {
  /** The connection the rows are written on, for the import's own lookups. */
  readonly connection: Database;
  /** The POIs' SQL on the connection the rows are written on: rows written and not committed are seen. */
  readonly store: PoiStore;
  /** One batch of new rows. */
  addMany(clientId: string, rows: readonly ValidAddPoi[], actor: Actor, found?: ReadonlyArray<SourcedAddress | undefined>): void;
  /** Resolves once the next batch may be written (a backup running pauses it: store/write-path.ts). */
  mayGo(): Promise<void>;
  /** Between batches: what has been written is committed when it is due. */
  settle(): void;
  /** The rows written so far, all on disk. */
  commit(): void;
  /** Lets go; what was not committed is rolled back (a cancelled or failed import undoes the rest). */
  close(): void;
}

/**
 * An import's writer: on a file, a connection of its own with one transaction held across turns
 * (store/long-write.ts); in memory (tests, a second connection would be another database), the
 * core's own, a transaction per batch.
 */
export function importWriter(s: Services): ImportWriter {
  const side = s.sideConnection?.();
  if (side === undefined) {
    return { connection: s.db, store: s.store, addMany: (clientId, rows, actor, found) => void s.pois.addMany(clientId, rows, actor, found), mayGo: () => Promise.resolve(), settle: () => undefined, commit: () => undefined, close: () => undefined };
  }
  const long = new LongWrite(side, s.writes, () => s.clock.now());
  try {
    const store = new PoiStore(side);
    const categories = new Categories(side, long.path, s.clock);
    const pois = new Pois(long.path, s.clock, store, categories, new WarningStore(side, long.path, s.clock, categories), s.geocoder, s.replyCache, new GeocodedFields(side));
    return {
      connection: side,
      store,
      addMany: (clientId, rows, actor, found) => void long.run(actor, () => pois.addMany(clientId, rows, actor, found)),
      mayGo: () => long.mayGo(),
      settle: () => long.commitIfDue(),
      commit: () => long.commit(),
      close: () => long.close(),
    };
  } catch (error) {
    long.close();
    throw error;
  }
}
