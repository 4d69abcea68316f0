/**
 * The one table of a POI's fields (docs/api-spec.md#the-poi-reply, docs/api-spec.md#add-a-poi).
 * Per field: its request (wire) name, its database column, its reply name, its kind, its limit,
 * whether it is an address field (filled by geocoding), whether it has a folded copy for matching
 * (shared/text-fold.ts), and how the admin UI labels it. The input schemas, the row type, the SQL, the replies (and their
 * OpenAPI description), the change log's history and the UI's form derive from it: adding a
 * field is a migration and one line here.
 */
export type PoiFieldKind = 'text' | 'latitude' | 'longitude' | 'elevation' | 'accuracy';

export interface PoiField {
  wire: string;
  column: string;
  reply: string;
  kind: PoiFieldKind;
  /** Text: the most characters (Unicode code points). */
  max?: number;
  /** Required on add, never deleted on update. */
  required?: true;
  /** Filled from the position by geocoding when not given. */
  address?: true;
  /** Matched case- and accent-insensitively: a folded copy `<column>_key` is stored and indexed. */
  folded?: true;
  label: string;
  multiline?: true;
  unit?: string;
}

export const POI_FIELDS = [
  { wire: 'name', column: 'name', reply: 'name', kind: 'text', max: 255, required: true, folded: true, label: 'Name' },
  { wire: 'desc', column: 'description', reply: 'description', kind: 'text', max: 1024, folded: true, label: 'Description', multiline: true },
  { wire: 'lat', column: 'lat', reply: 'latitude', kind: 'latitude', required: true, label: 'Latitude' },
  { wire: 'lng', column: 'lng', reply: 'longitude', kind: 'longitude', required: true, label: 'Longitude' },
  { wire: 'elevation', column: 'elevation', reply: 'elevation', kind: 'elevation', label: 'Elevation', unit: 'metres' },
  { wire: 'accuracy', column: 'accuracy', reply: 'accuracy', kind: 'accuracy', label: 'Accuracy', unit: 'metres' },
  { wire: 'vaccuracy', column: 'vaccuracy', reply: 'vaccuracy', kind: 'accuracy', label: 'Vertical accuracy', unit: 'metres' },
  { wire: 'address', column: 'address', reply: 'address', kind: 'text', max: 255, address: true, label: 'Address' },
  { wire: 'cross_street', column: 'cross_street', reply: 'cross_street', kind: 'text', max: 255, address: true, label: 'Cross street' },
  { wire: 'city', column: 'city', reply: 'city', kind: 'text', max: 100, address: true, folded: true, label: 'City' },
  { wire: 'country', column: 'country', reply: 'country', kind: 'text', max: 100, address: true, folded: true, label: 'Country' },
  { wire: 'postal_code', column: 'postal_code', reply: 'postal_code', kind: 'text', max: 12, address: true, folded: true, label: 'Postal code' },
  { wire: 'phone', column: 'phone', reply: 'phone', kind: 'text', max: 20, label: 'Phone' },
  { wire: 'twitter', column: 'twitter', reply: 'twitter', kind: 'text', max: 50, label: 'Twitter' },
] as const satisfies readonly PoiField[];

type Field = (typeof POI_FIELDS)[number];
export type PoiWireName = Field['wire'];
export type PoiColumn = Field['column'];
export type PoiReplyName = Field['reply'];

/** The optional text fields: every text field but the name. */
export type OptionalTextField = Extract<Field, { kind: 'text' }>['wire'] & Exclude<PoiWireName, 'name'>;
/** The optional numbers: elevation and the accuracies. */
export type NumberField = Extract<Field, { kind: 'elevation' | 'accuracy' }>['wire'];
/** The address fields geocoding fills. */
export type AddressField = Extract<Field, { address: true }>['wire'];

const wires = <F extends Field>(keep: (f: Field) => f is F): Array<F['wire']> => POI_FIELDS.filter(keep).map((f) => f.wire);

export const OPTIONAL_TEXT_FIELDS: readonly OptionalTextField[] = wires((f): f is Extract<Field, { wire: OptionalTextField }> => f.kind === 'text' && f.wire !== 'name');
export const NUMBER_FIELDS: readonly NumberField[] = wires((f): f is Extract<Field, { wire: NumberField }> => f.kind === 'elevation' || f.kind === 'accuracy');
export const ADDRESS_FIELDS: readonly AddressField[] = wires((f): f is Extract<Field, { wire: AddressField }> => 'address' in f);

/** The folded columns: `name_key`, `description_key`... */
export const FOLDED_COLUMNS: readonly PoiColumn[] = POI_FIELDS.filter((f) => 'folded' in f).map((f) => f.column);

export const poiField = <W extends PoiWireName>(wire: W): Extract<Field, { wire: W }> =>
  POI_FIELDS.find((f): f is Extract<Field, { wire: W }> => f.wire === wire)!;
