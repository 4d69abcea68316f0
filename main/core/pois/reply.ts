import { POI_FIELDS } from '../../../shared/poi-fields.js';
import { formatIso } from '../../../shared/time.js';
import type { CategoryReply, PoiReply, WarningCounts } from '../../../shared/wire.js';
import type { PoiRow } from './poi-row.js';

export const NO_WARNINGS: WarningCounts = { closed: 0, duplicated: 0, wrong_indicator: 0, wrong_info: 0 };

const key = (name: string): string => JSON.stringify(name);

/**
 * The reply as one object literal compiled from the field table once: a reply is built for every
 * POI of every answer (a near query builds a thousand), and an object assembled key by key costs
 * twenty times more to build and half again to serialise. The source holds only the table's own
 * names, never data.
 */
const build = new Function(
  'row',
  'categories',
  'warnings',
  'formatIso',
  `return {
    id: row.id,
    uuid: row.uuid,
    ${POI_FIELDS.map((f) => `${key(f.reply)}: row[${key(f.column)}]`).join(',\n    ')},
    registertime: formatIso(row.registered_at),
    categories,
    last_update: formatIso(row.updated_at),
    warnings: { closed: warnings.closed, duplicated: warnings.duplicated, wrong_indicator: warnings.wrong_indicator, wrong_info: warnings.wrong_info },
  };`,
) as (row: PoiRow, categories: CategoryReply[], warnings: WarningCounts, format: typeof formatIso) => PoiReply;

/** The POI reply (docs/api-spec.md#the-poi-reply), with every field present and null where there is no value. */
export function poiReply(row: PoiRow, categories: CategoryReply[], warnings: WarningCounts): PoiReply {
  return build(row, categories, warnings, formatIso);
}
