import { POI_FIELDS } from '../../../shared/poi-fields';
import { fieldLines, undoable, VERB, who } from '../activity/changeText';
import { useUndoChange } from '../activity/mutations';
import { FormError } from '../ui/Field';
import { usePoiHistory } from './queries';

/** Where geocoding found a change's address fields: "Address, Cross street from offline map package …; City, Country from offline places". */
function geocodedText(geocoded: Record<string, string>): string {
  const bySource = new Map<string, string[]>();
  for (const f of POI_FIELDS) {
    const source = geocoded[f.wire];
    if (source !== undefined) bySource.set(source, [...(bySource.get(source) ?? []), f.label]);
  }
  return [...bySource].map(([source, labels]) => `${labels.join(', ')} from ${source}`).join('; ');
}

/** Who changed what and when, with old and new values, newest first; the newest change can be undone. */
export function PoiHistory({ clientId, poi }: { clientId: string; poi: number }) {
  const history = usePoiHistory(clientId, poi);
  const undo = useUndoChange();
  if (!history.data) return null;
  // Newest first, as the log gives them; the POI's reports are in it too.
  const changes = history.data;
  const last = changes.find(undoable);
  return (
    <details className="poi-history">
      <summary>History ({changes.length} {changes.length === 1 ? 'change' : 'changes'})</summary>
      {last && (
        <div className="actions">
          <button type="button" disabled={undo.isPending} onClick={() => undo.mutate({ clientId, seq: last.seq })}>
            Undo the last change
          </button>
          {undo.isSuccess && <span role="status"> Undone.</span>}
        </div>
      )}
      <FormError error={undo.errors.form} />
      <ol aria-label="Changes, newest first">
        {changes.map((c) => (
          <li key={c.seq}>
            <p>
              {new Date(c.at).toLocaleString()}: {c.entity === 'warning' ? `a report ${VERB[c.op]}` : VERB[c.op]} by {who(c.actor)}
              {c.undoes !== null && ` (undo of change ${c.undoes})`}
            </p>
            {c.geocoded && <p>Geocoded: {geocodedText(c.geocoded)}</p>}
            {c.op === 'update' && (
              <ul>
                {fieldLines(c).map((l) => (
                  <li key={l.key}>{l.text}</li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
    </details>
  );
}
