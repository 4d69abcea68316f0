import type { Migration } from '../migration.js';

/**
 * POIs by client and folded name, then latitude: an import looks up, for each row, a POI of the
 * same name within 1 m (docs/imports.md#rows-that-are-already-there). By place alone, 3,000 POIs at
 * one point (a geocoder's fallback to a city's centre is common in messy data) made each lookup
 * read all of them; by name, it reads the few of that name near that latitude.
 */
export const migration016: Migration = {
  version: 16,
  name: 'name lookup',
  up(db) {
    db.exec('CREATE INDEX pois_by_name_key ON pois (client_id, name_key, lat);');
  },
};
