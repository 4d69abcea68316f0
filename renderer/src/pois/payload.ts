import type { Input } from '../../../shared/contract';
import type { PoiReply } from '../../../shared/wire';
import { NUMBER_FIELDS, TEXT_FIELDS, parseNumber, type FormValues } from './fields';

type AddFields = Input<'pois.add'>['fields'];
type UpdateFields = Input<'pois.update'>['fields'];

/** A typed number; what is not one (empty, "abc", "Infinity") becomes NaN, which the contract's schema refuses under its field. */
const numberOf = (text: string): number => {
  const n = parseNumber(text);
  return typeof n === 'number' ? n : Number.NaN;
};

/** Add: what is filled in; empty optional fields are simply not sent. */
export function buildAdd(v: FormValues): AddFields {
  const fields: AddFields = { lat: numberOf(v.lat), lng: numberOf(v.lng), name: v.text.name, categories: v.categories, geocode: v.geocode };
  for (const f of TEXT_FIELDS) if (f.key !== 'name' && v.text[f.key] !== '') fields[f.key] = v.text[f.key];
  for (const f of NUMBER_FIELDS) if (v.numbers[f.key].trim() !== '') fields[f.key] = numberOf(v.numbers[f.key]);
  return fields;
}

/**
 * Update: only what changed. A field emptied (typed away or cleared) is sent as null, which
 * deletes it; name, position and categories cannot be deleted and the server says so.
 */
export function buildUpdate(poi: number, before: PoiReply, v: FormValues): UpdateFields {
  const fields: UpdateFields = { poi };
  for (const f of TEXT_FIELDS) {
    const now = v.text[f.key];
    const was = before[f.reply] ?? '';
    if (now !== was) fields[f.key] = now === '' ? null : now;
  }
  for (const f of NUMBER_FIELDS) {
    const now = v.numbers[f.key].trim();
    const was = before[f.reply];
    if (now === '' && was !== null) fields[f.key] = null;
    else if (now !== '' && numberOf(now) !== was) fields[f.key] = numberOf(now);
  }
  const [lat, lng] = [numberOf(v.lat), numberOf(v.lng)];
  if (lat !== before.latitude || lng !== before.longitude) {
    fields.lat = lat;
    fields.lng = lng;
    fields.geocode = v.geocode;
  }
  const cats = [...v.categories].sort((a, b) => a - b).join(',');
  if (cats !== before.categories.map((c) => c.Id).sort((a, b) => a - b).join(',')) fields.categories = v.categories.length ? v.categories : null;
  return fields;
}
