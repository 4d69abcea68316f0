import type { Database, Statement } from 'better-sqlite3';
import type { AddressSources } from '../geocode/geocoder.js';

/**
 * Where the address fields a change wrote by geocoding came from (migration 018): written with the
 * change, in its transaction; read with the POI's history (change-log.ts).
 */
export class GeocodedFields {
  private readonly put: Statement<{ poi: number; field: string; source: string }>;
  private readonly ofChange: Statement<[number], { field: string; source: string }>;

  constructor(db: Database) {
    // The POI's newest change: the one its write just logged (the triggers log it in the same statement).
    this.put = db.prepare("INSERT INTO geocoded_fields (seq, field, source) SELECT max(seq), @field, @source FROM changes WHERE poi_id = @poi AND entity = 'poi'");
    this.ofChange = db.prepare('SELECT field, source FROM geocoded_fields WHERE seq = ? ORDER BY field');
  }

  /** Inside the write that changed the POI, right after it. */
  record(poi: number, sources: AddressSources): void {
    for (const [field, source] of Object.entries(sources)) this.put.run({ poi, field, source });
  }

  /** The sources of a change's geocoded fields, by field; null when it geocoded none. */
  of(seq: number): Record<string, string> | null {
    const rows = this.ofChange.all(seq);
    return rows.length === 0 ? null : Object.fromEntries(rows.map((r) => [r.field, r.source]));
  }
}
