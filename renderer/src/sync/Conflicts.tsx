import { useId, useState, type FormEvent } from 'react';
import { POI_FIELDS } from '../../../shared/poi-fields';
import type { ConflictSide, ConflictView } from '../../../shared/sync-view';
import { Field, FormError } from '../ui/Field';
import { coordinate, readableDate } from '../ui/format';
import { useResolveConflict } from './mutations';

const ENTITY_NAMES: Record<ConflictView['entity'], string> = { poi: 'POI', category: 'Category', member: 'Member', warning: 'Report' };

/** A field as a person reads it: a POI's by its form label, the others by their name in words. */
const FIELD_LABELS: Record<string, string> = {
  ...Object.fromEntries(POI_FIELDS.map((f) => [f.column, f.label])),
  categories: 'Categories',
  created_by: 'Added by (member)',
  registered_at: 'Registered',
  description: 'Description',
  deleted_at: 'Deleted',
  username: 'Username',
  email: 'E-mail',
  pwd_hash: 'Password',
  gender: 'Gender',
  birthday: 'Birthday',
  email_verified: 'E-mail verified',
  poi_uuid: 'POI',
  type: 'Type',
  member_id: 'Member',
  data: 'Proposal',
  created_at: 'Reported',
};
const labelOf = (field: string): string => FIELD_LABELS[field] ?? field;
const TIMES = new Set(['registered_at', 'deleted_at', 'created_at']);
const COORDINATES = new Set(POI_FIELDS.filter((f) => f.kind === 'latitude' || f.kind === 'longitude').map((f): string => f.column));

/** One value in words: empty as a dash, categories by their names, times as dates, a password never. */
function valueText(field: string | null, v: unknown, names: Record<string, string>): string {
  if (v === null || v === undefined || v === '') return '—';
  if (field === 'pwd_hash') return '(a password)';
  if (Array.isArray(v)) return v.map((ref) => names[String(ref)] ?? String(ref)).join(', ') || '—';
  if (field !== null && TIMES.has(field) && typeof v === 'number') return readableDate(new Date(v).toISOString());
  if (field !== null && COORDINATES.has(field)) return coordinate(v);
  return String(v);
}

/** A side of an edit against a delete: "Deleted", or the row's fields as a list. */
function RowValue({ value, names }: { value: unknown; names: Record<string, string> }) {
  if (value === 'deleted') return <strong>Deleted</strong>;
  if (typeof value !== 'object' || value === null) return <>{valueText(null, value, names)}</>;
  const entries = Object.entries(value).filter(([f, v]) => v !== null && f !== 'pwd_hash');
  return (
    <dl className="facts compact">
      {entries.map(([f, v]) => (
        <div key={f}>
          <dt>{labelOf(f)}</dt>
          <dd>{valueText(f, v, names)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The central's open conflicts, each from this desktop's point of view, with the way out of each. */
export function Conflicts({ conflicts }: { conflicts: ConflictView[] }) {
  const titleId = useId();
  return (
    <section aria-labelledby={titleId}>
      <h3 id={titleId}>Conflicts to resolve ({conflicts.length})</h3>
      {conflicts.length === 0 ? (
        <p className="note">None.</p>
      ) : (
        <ul className="conflicts" aria-label="Conflicts, oldest first">
          {conflicts.map((c) => (
            <li className="conflict" key={c.id}>
              {c.kind === 'clash' ? <Clash c={c} /> : <Sides c={c} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const subjectOf = (c: ConflictView): string => `${ENTITY_NAMES[c.entity]} “${c.label ?? c.uuid.slice(0, 8)}”`;

/** A field both sides changed, or an edit against a delete: each side named, kept by a button each. */
function Sides({ c }: { c: ConflictView }) {
  const resolve = useResolveConflict();
  const subject = c.field === null ? `${subjectOf(c)}: edited on one side, deleted on the other` : `${subjectOf(c)}, ${labelOf(c.field)}`;
  const keepLabel = (side: ConflictSide): string =>
    c.field === null ? (side.value === 'deleted' ? 'Keep the delete' : 'Keep the edit') : side.thisDesktop ? 'Keep this desktop’s' : `Keep ${side.who}’s`;
  return (
    <>
      <p>
        <strong>{subject}</strong> <span className="muted">({readableDate(c.at)})</span>
      </p>
      <table className="diff">
        <caption className="visually-hidden">Values of {subject}</caption>
        <tbody>
          {c.field !== null && (
            <tr>
              <th scope="row">Before both</th>
              <td>{valueText(c.field, c.base, c.names)}</td>
            </tr>
          )}
          {c.sides.map((side) => (
            <tr key={side.keep}>
              <th scope="row">
                {side.who === 'this desktop' ? 'This desktop' : side.who.replace(/^device /, 'Device ')}
                {side.kept && <span className="muted"> (shown everywhere for now)</span>}
              </th>
              <td>{c.field === null ? <RowValue value={side.value} names={c.names} /> : valueText(c.field, side.value, c.names)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="actions">
        {c.sides.map((side) => (
          <button key={side.keep} type="button" disabled={resolve.isPending} aria-label={`${keepLabel(side)}: ${subject}`} onClick={() => resolve.mutate({ id: c.id, keep: side.keep })}>
            {keepLabel(side)}
          </button>
        ))}
      </div>
      <FormError error={resolve.errors.form} />
    </>
  );
}

/**
 * Two rows that may not share a value (a username, an e-mail, a category's name), made apart on
 * two desktops: rename one, or merge them into one (what referred to the dropped one then refers
 * to the kept one).
 */
function Clash({ c }: { c: ConflictView }) {
  const resolve = useResolveConflict();
  const [target, setTarget] = useState(c.uuid);
  const [to, setTo] = useState('');
  const field = labelOf(c.field ?? '').toLowerCase();
  const subject = `${ENTITY_NAMES[c.entity]}s with the same ${field}`;
  const rows = [
    { uuid: c.uuid, value: String(c.mine), who: c.sides.find((s) => s.keep === 'pushed')!.who },
    { uuid: c.other_uuid ?? '', value: String(c.theirs), who: c.sides.find((s) => s.keep === 'earlier')!.who },
  ];
  const groupId = useId();
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (!resolve.isPending) resolve.submit({ id: c.id, rename: { uuid: target, to: to.trim() } });
  };
  return (
    <>
      <p>
        <strong>{subject}: “{String(c.mine)}” and “{String(c.theirs)}”</strong> <span className="muted">({readableDate(c.at)})</span>
      </p>
      <p className="note">
        Two desktops made them apart. Both are kept until you rename one, or merge them if they are the same {c.entity === 'member' ? 'person' : 'category'}.
      </p>
      <form className="panel-form" aria-label={`Rename: ${subject}`} onSubmit={submit} noValidate>
        <fieldset className="choices">
          <legend id={groupId}>Rename</legend>
          {rows.map((r) => (
            <label key={r.uuid} className="check">
              <input type="radio" name={`clash-${c.id}`} checked={target === r.uuid} onChange={() => setTarget(r.uuid)} />“{r.value}” ({r.who === 'this desktop' ? 'made on this desktop' : `from ${r.who}`})
            </label>
          ))}
          <Field label={`New ${field}`} value={to} onChange={setTo} error={resolve.errors.form && to ? resolve.errors.form : undefined} />
          <button type="submit" disabled={resolve.isPending}>
            Rename
          </button>
        </fieldset>
      </form>
      <div className="actions" role="group" aria-label={`Merge: ${subject}`}>
        {rows.map((keep, i) => (
          <button
            key={keep.uuid}
            type="button"
            disabled={resolve.isPending}
            onClick={() => resolve.mutate({ id: c.id, merge: { keep: keep.uuid, drop: rows[1 - i]!.uuid } })}
          >
            Merge into “{keep.value}” ({keep.who === 'this desktop' ? 'this desktop’s' : `${keep.who}’s`})
          </button>
        ))}
      </div>
      <FormError error={!to ? resolve.errors.form : undefined} />
    </>
  );
}
