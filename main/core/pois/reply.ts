import { formatIso } from '../../../shared/time.js';
import type { CategoryReply, PoiReply, WarningCounts } from '../../../shared/wire.js';
import type { PoiRow } from './poi-row.js';

export const NO_WARNINGS: WarningCounts = { closed: 0, duplicated: 0, wrong_indicator: 0, wrong_info: 0 };

/** The POI of spec 2.1, with every field present and null where there is no value. */
export function poiReply(row: PoiRow, categories: CategoryReply[], warnings: WarningCounts): PoiReply {
  return {
    id: row.id,
    uuid: row.uuid,
    name: row.name,
    description: row.description,
    latitude: row.lat,
    longitude: row.lng,
    elevation: row.elevation,
    accuracy: row.accuracy,
    vaccuracy: row.vaccuracy,
    registertime: formatIso(row.registered_at),
    categories,
    address: row.address,
    cross_street: row.cross_street,
    city: row.city,
    country: row.country,
    postal_code: row.postal_code,
    phone: row.phone,
    twitter: row.twitter,
    last_update: formatIso(row.updated_at),
    warnings: { ...warnings },
  };
}
