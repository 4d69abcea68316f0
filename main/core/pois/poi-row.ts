import type { AddressField } from '../../../shared/schemas/pois.js';

/** A row of `pois`, in the database's own column names. */
export interface PoiRow {
  id: number;
  client_id: string;
  name: string;
  description: string | null;
  lat: number;
  lng: number;
  elevation: number | null;
  accuracy: number | null;
  vaccuracy: number | null;
  address: string | null;
  cross_street: string | null;
  city: string | null;
  country: string | null;
  postal_code: string | null;
  phone: string | null;
  twitter: string | null;
  created_by: string | null;
  registered_at: number;
  updated_at: number;
}

export const POI_COLUMNS =
  'id, client_id, name, description, lat, lng, elevation, accuracy, vaccuracy, address, cross_street, city, country, postal_code, phone, twitter, created_by, registered_at, updated_at';

/** The same columns qualified by an alias, for joins. */
export const poiColumns = (alias: string): string =>
  POI_COLUMNS.split(', ')
    .map((c) => `${alias}.${c}`)
    .join(', ');

/** Wire parameter name -> column, for the fields whose names differ. */
export const COLUMN_OF = { desc: 'description', lat: 'lat', lng: 'lng' } as const;

export type PoiAddress = Pick<PoiRow, AddressField>;
