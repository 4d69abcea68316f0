import { POI_FIELDS } from '../../../shared/poi-fields';
import type { ChangeReply } from '../../../shared/wire';
import { coordinate } from '../ui/format';

/** The change log names columns; a person reads the form's labels. */
const LABELS: Record<string, string> = { ...Object.fromEntries(POI_FIELDS.map((f) => [f.column, f.label])), category_ids: 'Categories' };

/** Bookkeeping columns: not news to a person. */
const HIDDEN = new Set(['id', 'uuid', 'client_id', 'updated_at', 'registered_at', 'created_at', 'created_by', 'name_key', 'description_key', 'city_key', 'country_key', 'postal_code_key']);

/** The position's columns: shown as every position is (coordinate()). */
const COORDINATES = new Set(POI_FIELDS.filter((f) => f.kind === 'latitude' || f.kind === 'longitude').map((f): string => f.column));

const shownValue = (v: unknown, column?: string): string =>
  v === null || v === undefined || v === '' ? '—' : Array.isArray(v) ? v.join(', ') : column !== undefined && COORDINATES.has(column) ? coordinate(v) : String(v);

export const who = (actor: ChangeReply['actor']): string =>
  ({ member: `member ${actor.id ?? ''}`.trim(), administrator: "the client's administrator", console: 'the console', import: 'an import', sync: 'a sync', system: 'the service' })[actor.kind];

export const VERB: Record<ChangeReply['op'], string> = { create: 'created', update: 'changed', delete: 'deleted' };

const ENTITY: Record<string, string> = { poi: 'POI', warning: 'report', category: 'category', member: 'member', client: 'client application', token: 'token', setting: 'setting' };

/** "POI 12 “Café Sol”", "report 4", "category 9": the name when the change carries it. */
export function subject(c: ChangeReply): string {
  const name = c.fields.name ?? c.fields.description ?? c.fields.username;
  const named = name ? (name[1] ?? name[0]) : undefined;
  return `${ENTITY[c.entity] ?? c.entity} ${c.entity === 'token' ? '' : c.id}${typeof named === 'string' ? ` “${named}”` : ''}`.trim();
}

/** An update's fields as "Label: old → new" lines, bookkeeping left out. */
export function fieldLines(c: ChangeReply): Array<{ key: string; text: string }> {
  return Object.entries(c.fields)
    .filter(([column]) => !HIDDEN.has(column))
    .map(([column, [from, to]]) => ({ key: column, text: `${LABELS[column] ?? column}: ${shownValue(from, column)} → ${shownValue(to, column)}` }));
}

/** Which changes the console can reverse (main/core/changes/undo.ts): a POI's and a report's, but not a report's move. */
export const undoable = (c: ChangeReply): boolean => c.entity === 'poi' || (c.entity === 'warning' && c.op !== 'update');
