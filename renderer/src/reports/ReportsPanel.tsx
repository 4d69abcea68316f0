import '../ui/panels.css';
import { useId } from 'react';
import { POI_FIELDS } from '../../../shared/poi-fields';
import type { PoiReply, WarningReply } from '../../../shared/wire';
import { usePoi } from '../pois/queries';
import { FormError } from '../ui/Field';
import { useApplyReport, useDismissReport } from './mutations';
import { useOpenReports } from './queries';

const TYPES: Record<WarningReply['type'], string> = {
  CLOSED: 'Closed for good',
  DUPLICATED: 'Duplicate',
  WRONG_INDICATOR: 'Wrong position',
  WRONG_INFO: 'Wrong information',
};

const shown = (v: unknown): string => (v === null || v === undefined || v === '' ? '—' : String(v));

/** What a proposal would change: the fields it gives that differ from the POI, current beside proposed. */
function changes(poi: PoiReply, w: WarningReply): Array<{ label: string; current: string; proposed: string }> {
  if (!w.data) return [];
  const data = w.data;
  const rows: Array<{ label: string; current: string; proposed: string }> = POI_FIELDS.flatMap((f) => {
    const proposed = data[f.reply];
    return proposed !== null && proposed !== poi[f.reply] ? [{ label: f.label, current: shown(poi[f.reply]), proposed: shown(proposed) }] : [];
  });
  const names = (cs: PoiReply['categories']) => cs.map((c) => c.Description).join(', ');
  if (data.categories.length > 0 && names(data.categories) !== names(poi.categories)) rows.push({ label: 'Categories', current: names(poi.categories), proposed: names(data.categories) });
  return rows;
}

function Report({ clientId, w, onOpen }: { clientId: string; w: WarningReply; onOpen: (poi: number) => void }) {
  const poi = usePoi(clientId, w.poi_id);
  const apply = useApplyReport();
  const dismiss = useDismissReport();
  const diff = poi.data ? changes(poi.data, w) : [];
  const proposes = w.type === 'WRONG_INFO' || w.type === 'WRONG_INDICATOR';
  return (
    <li className="report">
      <h3>
        {TYPES[w.type]}:{' '}
        <button type="button" className="link" onClick={() => onOpen(w.poi_id)}>
          {poi.data?.name ?? `POI ${w.poi_id}`}
        </button>
      </h3>
      <p className="muted">
        Reported {new Date(w.timestamp).toLocaleString()} by {w.user_id ? `member ${w.user_id}` : 'an administrator'}
      </p>
      {proposes && diff.length > 0 && (
        <table className="diff">
          <caption>Proposed changes</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Now</th>
              <th scope="col">Proposed</th>
            </tr>
          </thead>
          <tbody>
            {diff.map((d) => (
              <tr key={d.label}>
                <th scope="row">{d.label}</th>
                <td>{d.current}</td>
                <td>{d.proposed}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {proposes && diff.length === 0 && poi.data && <p>The POI already holds what this report proposes.</p>}
      {!proposes && <p>Open the POI to delete it (closed for good) or to compare it with its duplicate.</p>}
      <div className="actions">
        {proposes && (
          <button type="button" disabled={apply.isPending} onClick={() => apply.mutate({ clientId, warning: w.id })}>
            Apply
          </button>
        )}
        <button type="button" disabled={dismiss.isPending} onClick={() => dismiss.mutate({ clientId, warning: w.id })}>
          Dismiss
        </button>
      </div>
      <FormError error={apply.errors.form ?? dismiss.errors.form} />
    </li>
  );
}

/** The client's open problem reports, oldest first: each applied (its proposal written as an update) or dismissed. */
export function ReportsPanel({ clientId, onOpen }: { clientId: string; onOpen: (poi: number) => void }) {
  const titleId = useId();
  const reports = useOpenReports(clientId);
  return (
    <section className="panel admin-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Problem reports</h2>
      {reports.isError && <FormError error={`Could not read the reports: ${reports.error.message}`} />}
      {reports.data && reports.data.length === 0 && <p>No open reports.</p>}
      {reports.data && reports.data.length > 0 && (
        <ul className="reports" aria-label="Open reports, oldest first">
          {reports.data.map((w) => (
            <Report key={w.id} clientId={clientId} w={w} onOpen={onOpen} />
          ))}
        </ul>
      )}
    </section>
  );
}
