/** A row of `pois`, in the database's own column names. */
export interface PoiRow {
  id: number;
  uuid: string;
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
  'id, uuid, client_id, name, description, lat, lng, elevation, accuracy, vaccuracy, address, cross_street, city, country, postal_code, phone, twitter, created_by, registered_at, updated_at';
