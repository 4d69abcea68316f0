import '../ui/panels.css';
import { useId } from 'react';
import { POI_FIELDS } from '../../../shared/poi-fields';
import type { OpenReport } from '../../../shared/contract';
import type { PoiReply, WarningReply } from '../../../shared/wire';
import { MergeChoice } from '../duplicates/MergeChoice';
import { useDeletePoi } from '../pois/mutations';
import { useDuplicates, usePoi } from '../pois/queries';
import { useConfirm } from '../ui/Confirm';
import { FormError } from '../ui/Field';
import { coordinate } from '../ui/format';
import { useApplyReport, useDismissReport } from './mutations';
import { useOpenReports } from './queries';

const TYPES: Record<WarningReply['type'], string> = {
  CLOSED: 'Closed for good',
  DUPLICATED: 'Duplicate',
  WRONG_INDICATOR: 'Wrong position',
  WRONG_INFO: 'Wrong information',
};

const shown = (v: unknown, kind?: string): string =>
  v === null || v === undefined || v === '' ? '—' : kind === 'latitude' || kind === 'longitude' ? coordinate(v) : String(v);

/** What a proposal would change: the fields it gives that differ from the POI, current beside proposed. */
function changes(poi: PoiReply, w: WarningReply): Array<{ label: string; current: string; proposed: string }> {
  if (!w.data) return [];
  const data = w.data;
  const rows: Array<{ label: string; current: string; proposed: string }> = POI_FIELDS.flatMap((f) => {
    const proposed = data[f.reply];
    return proposed !== null && proposed !== poi[f.reply] ? [{ label: f.label, current: shown(poi[f.reply], f.kind), proposed: shown(proposed, f.kind) }] : [];
  });
  const names = (cs: PoiReply['categories']) => cs.map((c) => c.Description).join(', ');
  if (data.categories.length > 0 && names(data.categories) !== names(poi.categories)) rows.push({ label: 'Categories', current: names(poi.categories), proposed: names(data.categories) });
  return rows;
}

function Report({ clientId, w, onOpen }: { clientId: string; w: OpenReport; onOpen: (poi: number) => void }) {
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
        Reported {new Date(w.timestamp).toLocaleString()} by {w.reporter ?? 'the client’s administrator'}
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
      {w.type === 'DUPLICATED' && poi.data && <DuplicateOf clientId={clientId} poi={poi.data} />}
      {w.type === 'CLOSED' && poi.data && <DeleteClosed clientId={clientId} poi={poi.data} />}
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

/** A DUPLICATED report: the POIs it may duplicate (within 50 m, a similar name), each with a merge. */
function DuplicateOf({ clientId, poi }: { clientId: string; poi: PoiReply }) {
  const twins = useDuplicates(clientId, { lat: poi.latitude, lng: poi.longitude, name: poi.name, except: poi.id });
  if (!twins.data) return null;
  if (twins.data.length === 0) return <p>No POI within 50 m has a similar name: open the POI to compare, or dismiss the report.</p>;
  return (
    <ul className="pairs" aria-label={`POIs “${poi.name}” may duplicate`}>
      {twins.data.map((t) => (
        <li key={t.id}>
          <p>
            Possible duplicate of “{t.name}”, {t.distance_m} m away
          </p>
          <MergeChoice clientId={clientId} a={{ id: poi.id, name: poi.name }} b={{ id: t.id, name: t.name }} />
        </li>
      ))}
    </ul>
  );
}

/** A CLOSED report: the place is gone; deleting the POI closes its reports with it (and can be undone). */
function DeleteClosed({ clientId, poi }: { clientId: string; poi: PoiReply }) {
  const remove = useDeletePoi();
  const confirm = useConfirm();
  const question = { title: 'Delete a POI', text: `Delete “${poi.name}”? Its reports close with it; the delete can be undone from the Activity panel.`, yes: 'Delete POI', no: 'Keep', destructive: true };
  return (
    <div className="actions">
      <button
        type="button"
        disabled={remove.isPending}
        onClick={() => void confirm(question).then((yes) => yes && remove.mutate({ clientId, poi: poi.id }))}
      >
        Delete the POI
      </button>
      <FormError error={remove.errors.form} />
    </div>
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
