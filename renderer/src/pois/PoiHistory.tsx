import { POI_FIELDS } from '../../../shared/poi-fields';
import type { ChangeReply } from '../../../shared/wire';
import { usePoiHistory } from './queries';

/** The change log names columns; a person reads the form's labels. */
const LABELS: Record<string, string> = { ...Object.fromEntries(POI_FIELDS.map((f) => [f.column, f.label])), category_ids: 'Categories' };
/** Bookkeeping columns every change touches: not news to a person. */
const HIDDEN = new Set(['id', 'uuid', 'client_id', 'updated_at', 'registered_at', 'created_by', 'name_key', 'description_key', 'city_key', 'country_key', 'postal_code_key']);

const value = (v: unknown): string => (v === null || v === undefined || v === '' ? '—' : Array.isArray(v) ? v.join(', ') : String(v));

const who = (actor: ChangeReply['actor']): string =>
  ({ member: `member ${actor.id ?? ''}`.trim(), administrator: "the client's administrator", console: 'the console', import: 'an import', sync: 'a sync', system: 'the service' })[actor.kind];

const VERB: Record<ChangeReply['op'], string> = { create: 'created', update: 'changed', delete: 'deleted' };

/** Who changed what and when, with old and new values, newest first. */
export function PoiHistory({ clientId, poi }: { clientId: string; poi: number }) {
  const history = usePoiHistory(clientId, poi);
  if (!history.data) return null;
  // Newest first, as the log gives them; the POI's reports are in it too.
  const changes = history.data;
  return (
    <details className="poi-history">
      <summary>History ({changes.length} {changes.length === 1 ? 'change' : 'changes'})</summary>
      <ol aria-label="Changes, newest first">
        {changes.map((c) => (
          <li key={c.seq}>
            <p>
              {new Date(c.at).toLocaleString()}: {c.entity === 'warning' ? `a report ${VERB[c.op]}` : VERB[c.op]} by {who(c.actor)}
            </p>
            {c.op === 'update' && (
              <ul>
                {Object.entries(c.fields)
                  .filter(([column]) => !HIDDEN.has(column))
                  .map(([column, [from, to]]) => (
                    <li key={column}>
                      {LABELS[column] ?? column}: {value(from)} → {value(to)}
                    </li>
                  ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
    </details>
  );
}
