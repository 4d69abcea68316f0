import { POI_FIELDS } from '../../../shared/poi-fields';
import type { Fix } from '../../../shared/location';
import type { PoiReply } from '../../../shared/wire';

type Field = (typeof POI_FIELDS)[number];
type TextField = Extract<Field, { kind: 'text' }>;
type NumberField = Extract<Field, { kind: 'elevation' | 'accuracy' }>;

/** The POI form's text fields, from the field table: wire name (key), label, reply field, lines. */
export const TEXT_FIELDS = POI_FIELDS.filter((f): f is TextField => f.kind === 'text').map((f) => ({
  key: f.wire,
  label: f.label,
  reply: f.reply,
  multiline: 'multiline' in f,
}));

/** The POI form's optional numbers, from the field table. */
export const NUMBER_FIELDS = POI_FIELDS.filter((f): f is NumberField => f.kind === 'elevation' || f.kind === 'accuracy').map((f) => ({
  key: f.wire,
  label: f.label,
  reply: f.reply,
  unit: f.unit,
}));

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
  const text = {} as Record<TextKey, string>;
  for (const f of TEXT_FIELDS) text[f.key] = '';
  const numbers = {} as Record<NumberKey, string>;
  for (const f of NUMBER_FIELDS) numbers[f.key] = '';
  return {
    text,
    numbers,
    lat: lat.toFixed(6),
    lng: lng.toFixed(6),
    categories: [],
    geocode: true,
  };
}

/**
 * A new POI's form at a fix: its position to 7 decimals (a centimetre: what an RTK receiver
 * gives), and the height and accuracies the source gave, to the centimetre.
 */
export function valuesAt(fix: Fix): FormValues {
  const values = emptyValues(fix.lat, fix.lng);
  for (const f of NUMBER_FIELDS) {
    const v = fix[f.key];
    if (v !== undefined) values.numbers[f.key] = String(Math.round(v * 100) / 100);
  }
  return { ...values, lat: fix.lat.toFixed(7), lng: fix.lng.toFixed(7) };
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
