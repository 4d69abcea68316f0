import { useEffect, useRef } from 'react';
import { useConfirm } from '../ui/Confirm';
import { FormError } from '../ui/Field';
import { fieldError } from '../ui/errors';
import { position } from '../ui/format';
import { NUMBER_FIELDS, TEXT_FIELDS } from './fields';
import { useDeletePoi } from './mutations';
import { PoiHistory } from './PoiHistory';
import { usePoi, useWarnings } from './queries';

interface Props {
  clientId: string;
  poi: number;
  onEdit: () => void;
  onDeleted: () => void;
  onClose: () => void;
  /** Move focus to the POI's name once shown (it was just saved: the result of what the person did). */
  focusTitle?: boolean;
}

/** A POI's fields and open warnings. Every value is rendered as text. */
export function PoiDetails({ clientId, poi, onEdit, onDeleted, onClose, focusTitle = false }: Props) {
  const details = usePoi(clientId, poi);
  const title = useRef<HTMLHeadingElement>(null);
  const shown = details.data !== undefined;
  useEffect(() => {
    if (focusTitle && shown) title.current?.focus();
  }, [focusTitle, shown, poi]);
  const warnings = useWarnings(clientId, poi);
  const remove = useDeletePoi();
  const confirm = useConfirm();
  const p = details.data;
  if (details.error) return <FormError error={fieldError(details.error)?.message} />;
  if (!p) return <section className="panel">Loading…</section>;
  const counts = p.warnings;
  const open = counts.closed + counts.duplicated + counts.wrong_indicator + counts.wrong_info;
  return (
    <section className="panel" aria-label="POI details">
      <h2 data-testid="poi-title" tabIndex={-1} ref={title}>
        {p.name}
      </h2>
      <dl className="details">
        <dt>Position</dt>
        <dd data-field="position">{position(p.latitude, p.longitude)}</dd>
        <dt>Categories</dt>
        <dd>{p.categories.map((c) => c.Description).join(', ') || '—'}</dd>
        {TEXT_FIELDS.filter((f) => f.key !== 'name').map((f) => (
          <div key={f.key} className="row">
            <dt>{f.label}</dt>
            <dd data-field={f.key}>{p[f.reply] ?? '—'}</dd>
          </div>
        ))}
        {NUMBER_FIELDS.map((f) => (
          <div key={f.key} className="row">
            <dt>{f.label}</dt>
            <dd data-field={f.key}>{p[f.reply] ?? '—'}</dd>
          </div>
        ))}
        <dt>Registered</dt>
        <dd>{new Date(p.registertime).toLocaleString()}</dd>
        <dt>Last update</dt>
        <dd>{new Date(p.last_update).toLocaleString()}</dd>
      </dl>
      <h3>Warnings ({open} open)</h3>
      <p className="muted">
        Closed {counts.closed} · Duplicated {counts.duplicated} · Wrong position {counts.wrong_indicator} · Wrong info {counts.wrong_info}
      </p>
      {warnings.data && warnings.data.length > 0 && (
        <ul className="warnings">
          {warnings.data.map((w) => (
            <li key={w.id}>
              {w.type} · {new Date(w.timestamp).toLocaleString()}
              {w.data && <code>{JSON.stringify(w.data)}</code>}
            </li>
          ))}
        </ul>
      )}
      <PoiHistory clientId={clientId} poi={poi} />
      <FormError error={remove.errors.form} />
      <div className="actions">
        <button type="button" onClick={onEdit}>
          Edit
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => {
            const question = { title: 'Delete a POI', text: `Delete “${p.name}”? You can bring it back from the Activity panel (Restore).`, yes: 'Delete POI', no: 'Keep', destructive: true };
            void confirm(question).then((yes) => yes && remove.mutate({ clientId, poi }, { onSuccess: onDeleted }));
          }}
        >
          Delete POI
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </section>
  );
}
