import { POI_FIELDS } from '../../../shared/poi-fields.js';
import { formatIso } from '../../../shared/time.js';
import type { CategoryReply, PoiReply, WarningCounts } from '../../../shared/wire.js';
import type { PoiRow } from './poi-row.js';

export const NO_WARNINGS: WarningCounts = { closed: 0, duplicated: 0, wrong_indicator: 0, wrong_info: 0 };

type Field = (typeof POI_FIELDS)[number];

/** The POI of spec 2.1, with every field present and null where there is no value. */
export function poiReply(row: PoiRow, categories: CategoryReply[], warnings: WarningCounts): PoiReply {
  // Each field of the table under its reply name (the table's columns and reply names pair up).
  const fields = Object.fromEntries(POI_FIELDS.map((f) => [f.reply, row[f.column]])) as { [F in Field as F['reply']]: PoiRow[F['column']] };
  return {
    id: row.id,
    uuid: row.uuid,
    ...fields,
    registertime: formatIso(row.registered_at),
    categories,
    last_update: formatIso(row.updated_at),
    warnings: { ...warnings },
  };
}
