import type { PoiReply } from '../../../shared/wire';

/** The POI form's text fields: wire name, label, and the reply field that holds the value. */
export const TEXT_FIELDS = [
  { key: 'name', label: 'Name', reply: 'name' },
  { key: 'desc', label: 'Description', reply: 'description', multiline: true },
  { key: 'address', label: 'Address', reply: 'address' },
  { key: 'cross_street', label: 'Cross street', reply: 'cross_street' },
  { key: 'city', label: 'City', reply: 'city' },
  { key: 'country', label: 'Country', reply: 'country' },
  { key: 'postal_code', label: 'Postal code', reply: 'postal_code' },
  { key: 'phone', label: 'Phone', reply: 'phone' },
  { key: 'twitter', label: 'Twitter', reply: 'twitter' },
] as const satisfies ReadonlyArray<{ key: string; label: string; reply: keyof PoiReply; multiline?: boolean }>;

export const NUMBER_FIELDS = [
  { key: 'elevation', label: 'Elevation', reply: 'elevation', unit: 'metres' },
  { key: 'accuracy', label: 'Accuracy', reply: 'accuracy', unit: 'metres' },
  { key: 'vaccuracy', label: 'Vertical accuracy', reply: 'vaccuracy', unit: 'metres' },
] as const satisfies ReadonlyArray<{ key: string; label: string; reply: keyof PoiReply; unit: string }>;

export type TextKey = (typeof TEXT_FIELDS)[number]['key'];
export type NumberKey = (typeof NUMBER_FIELDS)[number]['key'];

/** Every field of the POI form, by wire name: where a refusal naming one of them is shown. */
export const POI_FORM_FIELDS = ['lat', 'lng', 'categories', ...TEXT_FIELDS.map((f) => f.key), ...NUMBER_FIELDS.map((f) => f.key)] as const;
export type PoiFormField = (typeof POI_FORM_FIELDS)[number];

export interface FormValues {
  text: Record<TextKey, string>;
  numbers: Record<NumberKey, string>;
  lat: string;
  lng: string;
  categories: number[];
  geocode: boolean;
}

export function emptyValues(lat: number, lng: number): FormValues {
  return {
    text: { name: '', desc: '', address: '', cross_street: '', city: '', country: '', postal_code: '', phone: '', twitter: '' },
    numbers: { elevation: '', accuracy: '', vaccuracy: '' },
    lat: lat.toFixed(6),
    lng: lng.toFixed(6),
    categories: [],
    geocode: true,
  };
}

export function valuesOf(poi: PoiReply): FormValues {
  const text = {} as Record<TextKey, string>;
  for (const f of TEXT_FIELDS) text[f.key] = poi[f.reply] ?? '';
  const numbers = {} as Record<NumberKey, string>;
  for (const f of NUMBER_FIELDS) numbers[f.key] = poi[f.reply] === null ? '' : String(poi[f.reply]);
  return { text, numbers, lat: String(poi.latitude), lng: String(poi.longitude), categories: poi.categories.map((c) => c.Id), geocode: false };
}

/** A number the user typed, or the message to show under its field. */
export function parseNumber(text: string): number | string {
  const n = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(n) ? n : 'must be a number';
}
