import type { WarningType } from '../../../shared/schemas/pois.js';
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

/** Request names of spec 4.1 that the POI reply spells otherwise (spec 2.1). */
const REPLY_NAMES = { lat: 'latitude', lng: 'longitude', desc: 'description' } as const;

const NUMBERS = ['latitude', 'longitude', 'accuracy', 'vaccuracy', 'elevation'] as const;
const TEXTS = ['name', 'description', 'address', 'cross_street', 'city', 'country', 'postal_code', 'phone', 'twitter'] as const;

function proposal(row: WarningRow, categories: (ids: readonly number[]) => CategoryReply[]): WarningProposal | null {
  if (row.type === 'CLOSED' || row.type === 'DUPLICATED') return null;
  const stored = row.data === null ? {} : (JSON.parse(row.data) as Record<string, unknown>);
  const named = new Map(Object.entries(stored).map(([k, v]) => [k in REPLY_NAMES ? REPLY_NAMES[k as keyof typeof REPLY_NAMES] : k, v]));
  const out: WarningProposal = {
    id: row.id,
    latitude: null,
    longitude: null,
    accuracy: null,
    vaccuracy: null,
    elevation: null,
    name: null,
    description: null,
    address: null,
    cross_street: null,
    city: null,
    country: null,
    postal_code: null,
    phone: null,
    twitter: null,
    categories: [],
  };
  for (const key of NUMBERS) {
    const v = named.get(key);
    if (typeof v === 'number') out[key] = v;
  }
  for (const key of TEXTS) {
    const v = named.get(key);
    if (typeof v === 'string') out[key] = v;
  }
  const ids = named.get('categories');
  if (Array.isArray(ids)) out.categories = categories(ids.filter((id): id is number => typeof id === 'number'));
  return out;
}

/**
 * A report as the old SDK parses it (api-extensions.md, "Replies that old clients parse"): `data`
 * is null for CLOSED and DUPLICATED, else the proposal in the POI reply's names and shapes.
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
