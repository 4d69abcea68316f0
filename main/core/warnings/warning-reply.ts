import type { WarningType } from '../../../shared/schemas/pois.js';
import { warningProposal } from '../../../shared/api/replies.js';
import { POI_FIELDS } from '../../../shared/poi-fields.js';
import { formatIso } from '../../../shared/time.js';
import type { CategoryReply, PoiReply, WarningListPoi, WarningProposal, WarningReply } from '../../../shared/wire.js';

/** A report as stored: `data` holds the proposed values under their request names (lat, desc...). */
export interface WarningRow {
  id: number;
  poi_id: number;
  type: WarningType;
  member_id: string | null;
  created_at: number;
  data: string | null;
}

function proposal(row: WarningRow, categories: (ids: readonly number[]) => CategoryReply[]): WarningProposal | null {
  if (row.type === 'CLOSED' || row.type === 'DUPLICATED') return null;
  // Stored under the request's names (lat, desc...): given back under the reply's (latitude, description...).
  const stored = row.data === null ? {} : (JSON.parse(row.data) as Record<string, unknown>);
  const out: Record<string, unknown> = { id: row.id };
  for (const f of POI_FIELDS) {
    const value = stored[f.wire];
    out[f.reply] = typeof value === (f.kind === 'text' ? 'string' : 'number') ? value : null;
  }
  const ids = stored['categories'];
  out['categories'] = Array.isArray(ids) ? categories(ids.filter((id): id is number => typeof id === 'number')) : [];
  return warningProposal.parse(out);
}

/**
 * A report as the old SDK parses it (docs/api-spec.md#replies-old-clients-parse): `data` is null
 * for CLOSED and DUPLICATED, else the proposal in the POI reply's names and shapes.
 */
export function warningReply(row: WarningRow, categories: (ids: readonly number[]) => CategoryReply[]): WarningReply {
  return {
    id: row.id,
    poi_id: row.poi_id,
    type: row.type,
    user_id: row.member_id,
    timestamp: formatIso(row.created_at),
    data: proposal(row, categories),
  };
}

/**
 * The POI of the warnings list. The SDK reads `crossStreet`, `postalCode`, `lastUpdate` and
 * `warnings.wrongIndicator` / `wrongInfo` in this reply only (snake_case everywhere else), so
 * this reply carries both spellings and no other reply does.
 */
export function warningListPoi(poi: PoiReply): WarningListPoi {
  return {
    ...poi,
    crossStreet: poi.cross_street,
    postalCode: poi.postal_code,
    lastUpdate: poi.last_update,
    warnings: { ...poi.warnings, wrongIndicator: poi.warnings.wrong_indicator, wrongInfo: poi.warnings.wrong_info },
  };
}
