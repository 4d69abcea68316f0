import { useEffect, useRef, useState, type FormEvent } from 'react';
import { sayRefusal } from '../../../shared/import-words';
import type { PoiReply, PossibleDuplicate } from '../../../shared/wire';
import { formatMetres, type Fix } from '../../../shared/location';
import { useCategories } from '../categories/queries';
import { useConfirm } from '../ui/Confirm';
import { ErrorSummary, type Problem } from '../ui/ErrorSummary';
import { Field, FormError } from '../ui/Field';
import { NUMBER_FIELDS, POI_FORM_FIELDS, TEXT_FIELDS, emptyValues, valuesAt, valuesOf, type FormValues, type PoiFormField } from './fields';
import { DuplicateNotice } from './DuplicateNotice';
import { useAddPoi, useUpdatePoi } from './mutations';
import { buildAdd, buildUpdate } from './payload';
import { usePoi } from './queries';

interface Props {
  clientId: string;
  /** Add mode: where the map was clicked. */
  position?: { lat: number; lng: number };
  /** Add mode at my position: the fix taken, and who gave it (its height and accuracies fill the form). */
  taken?: { fix: Fix; from: string };
  /** Edit mode: the POI to change. */
  poiId?: number;
  onSaved: (poi: PoiReply) => void;
  onCancel: () => void;
  /** Put focus in the first field (the form was opened from the keyboard, not by a click on the map). */
  focusFirst?: boolean;
  /** Opens another POI (a possible duplicate named by the form's notice) in place of the form. */
  onOpenPoi: (poi: number) => void;
  /** The position typed so far, once it is a valid one: the map's pending marker follows it. */
  onPosition?: (lat: number, lng: number) => void;
}

/** A typed latitude and longitude, when both are numbers in range (what the map can show). */
function typedPosition(lat: string, lng: string): { lat: number; lng: number } | undefined {
  const la = Number(lat);
  const ln = Number(lng);
  if (lat.trim() === '' || lng.trim() === '' || !Number.isFinite(la) || !Number.isFinite(ln)) return undefined;
  return Math.abs(la) <= 90 && Math.abs(ln) <= 180 ? { lat: la, lng: ln } : undefined;
}

/** How the error summary names each field: the form's own labels. */
const FIXED_LABELS: Partial<Record<PoiFormField, string>> = { lat: 'Latitude', lng: 'Longitude', categories: 'Categories' };
/** The fields in the order the form shows them, which the error summary follows. */
const FORM_ORDER: readonly PoiFormField[] = ['name', 'lat', 'lng', 'categories', ...POI_FORM_FIELDS.filter((f) => !['name', 'lat', 'lng', 'categories'].includes(f))];
const labelOf = (key: PoiFormField): string => FIXED_LABELS[key] ?? [...TEXT_FIELDS, ...NUMBER_FIELDS].find((f) => f.key === key)?.label ?? key;

/** "Position from This device at 18:30:10, ±2.6 m, height ±3.1 m": where the form's numbers came from. */
function takenNote({ fix, from }: { fix: Fix; from: string }): string {
  const parts = [`Position from ${from} at ${new Date(fix.at).toLocaleTimeString()}`];
  if (fix.accuracy !== undefined) parts.push(`±${formatMetres(fix.accuracy)}`);
  if (fix.vaccuracy !== undefined) parts.push(`height ±${formatMetres(fix.vaccuracy)}`);
  return `${parts.join(', ')}.`;
}

/** Add a POI where the map was clicked, or edit one: edit sends only what changed. */
export function PoiForm({ clientId, position, taken, poiId, onSaved, onCancel, focusFirst = false, onOpenPoi, onPosition }: Props) {
  const editing = poiId !== undefined;
  const existing = usePoi(clientId, poiId);
  const categories = useCategories(clientId);
  const [values, setValues] = useState<FormValues | undefined>(taken ? valuesAt(taken.fix) : position ? emptyValues(position.lat, position.lng) : undefined);
  const add = useAddPoi();
  const update = useUpdatePoi();
  const mutation = editing ? update : add;

  useEffect(() => {
    if (editing && existing.data && !values) setValues(valuesOf(existing.data));
  }, [editing, existing.data, values]);
  const typed = values && typedPosition(String(values.lat), String(values.lng));
  const onPositionRef = useRef(onPosition);
  onPositionRef.current = onPosition;
  useEffect(() => {
    if (typed) onPositionRef.current?.(typed.lat, typed.lng);
  }, [typed?.lat, typed?.lng]);
  // What the form opened with: a form with changes says so (data-changed), and Escape asks before discarding them.
  const opened = useRef<string | undefined>(undefined);
  if (values && opened.current === undefined) opened.current = JSON.stringify(values);

  if (!values) return <section className="panel">Loading…</section>;

  // No category chosen: said as the person picks them, by name (shared/import-words.ts), not as the API's "category id".
  const errorOf = (key: PoiFormField) => {
    const message = mutation.errors.field(key);
    return key === 'categories' && message !== undefined && values.categories.length === 0 ? sayRefusal({ cause: 'no-category' }, 'form') : message;
  };
  const setText = (key: keyof FormValues['text'], v: string) => setValues({ ...values, text: { ...values.text, [key]: v } });
  const setNumber = (key: keyof FormValues['numbers'], v: string) => setValues({ ...values, numbers: { ...values.numbers, [key]: v } });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    // Checked with the contract's schema before it is sent (every problem at once): see useOperation.
    if (editing) update.submit({ clientId, fields: buildUpdate(poiId, existing.data!, values) }, { onSuccess: onSaved });
    else add.submit({ clientId, fields: buildAdd(values) }, { onSuccess: onSaved });
  };

  // Opening the possible duplicate leaves the form: typed work is not thrown away without asking (as Escape).
  const confirm = useConfirm();
  const openDuplicate = async (poi: PossibleDuplicate) => {
    const question = { title: 'Leave this form', text: `Open “${poi.name}”? What you typed here is not saved.`, yes: 'Open it', no: 'Stay in the form', destructive: true };
    if (JSON.stringify(values) !== opened.current && !(await confirm(question))) return;
    onOpenPoi(poi.id);
  };

  const problems: Problem[] = FORM_ORDER.flatMap((key) => {
    const message = errorOf(key);
    return message ? [{ target: `poi-${key}`, label: labelOf(key), message }] : [];
  });

  return (
    <section className="panel">
      <h2>{editing ? `Edit “${existing.data?.name ?? ''}”` : 'New POI'}</h2>
      {taken && <p className="note fix-taken">{takenNote(taken)}</p>}
      <form
        aria-label={editing ? 'Edit POI' : 'Add POI'}
        onSubmit={submit}
        noValidate
        data-changed={JSON.stringify(values) !== opened.current}
        // Ctrl+Enter saves from any field, the categories' list and the description included.
        onKeyDown={(e) => {
          if (e.key !== 'Enter' || !(e.ctrlKey || e.metaKey) || e.nativeEvent.isComposing) return;
          e.preventDefault();
          e.currentTarget.requestSubmit();
        }}
      >
        <ErrorSummary problems={problems} attempt={mutation.errors.attempt} />
        <Field id="poi-name" label="Name" value={values.text.name} onChange={(v) => setText('name', v)} error={errorOf('name')} required autoFocus={focusFirst} />
        <div className="pair">
          <Field id="poi-lat" label="Latitude" type="number" step="any" value={values.lat} onChange={(v) => setValues({ ...values, lat: v })} error={errorOf('lat')} required />
          <Field id="poi-lng" label="Longitude" type="number" step="any" value={values.lng} onChange={(v) => setValues({ ...values, lng: v })} error={errorOf('lng')} required />
        </div>
        <DuplicateNotice clientId={clientId} name={values.text.name} lat={values.lat} lng={values.lng} except={poiId} onOpen={(poi) => void openDuplicate(poi)} />
        <div className={errorOf('categories') ? 'field field-error' : 'field'}>
          <label htmlFor="poi-categories">Categories</label>
          <select
            id="poi-categories"
            multiple
            size={6}
            value={values.categories.map(String)}
            aria-invalid={errorOf('categories') ? true : undefined}
            onChange={(e) => setValues({ ...values, categories: [...e.target.selectedOptions].map((o) => Number(o.value)) })}
          >
            {(categories.data ?? []).map((c) => (
              <option key={c.Id} value={c.Id}>
                {c.Description}
                {c.is_system_category ? '' : ' (own)'}
              </option>
            ))}
          </select>
          <div className="hint">Ctrl/Cmd-click or Shift+arrows to choose several.</div>
          {errorOf('categories') && (
            <div className="error" role="alert">
              {errorOf('categories')}
            </div>
          )}
        </div>
        {TEXT_FIELDS.filter((f) => f.key !== 'name').map((f) => (
          <Field
            key={f.key}
            id={`poi-${f.key}`}
            label={f.label}
            value={values.text[f.key]}
            multiline={'multiline' in f && f.multiline}
            onChange={(v) => setText(f.key, v)}
            onClear={() => setText(f.key, '')}
            error={errorOf(f.key)}
          />
        ))}
        {NUMBER_FIELDS.map((f) => (
          <Field
            key={f.key}
            id={`poi-${f.key}`}
            label={f.label}
            type="number"
            step="any"
            value={values.numbers[f.key]}
            onChange={(v) => setNumber(f.key, v)}
            onClear={() => setNumber(f.key, '')}
            error={errorOf(f.key)}
            hint={f.unit}
          />
        ))}
        <div className="field checkbox">
          <input id="poi-geocode" type="checkbox" checked={values.geocode} onChange={(e) => setValues({ ...values, geocode: e.target.checked })} />
          <label htmlFor="poi-geocode">Fill empty address fields from the position (geocode)</label>
        </div>
        <div className="actions">
          <button type="submit" disabled={mutation.isPending}>
            {editing ? 'Save changes' : 'Save POI'}
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
        {/* A refusal of the whole form (the service unreachable, the POI gone) under its button, where
            the person is looking after Save: the form is long, its top out of view. */}
        <FormError error={mutation.errors.form} reveal />
      </form>
    </section>
  );
}
