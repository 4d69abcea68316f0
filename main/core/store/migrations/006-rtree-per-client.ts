import type { Migration } from '../migration.js';

/**
 * The R*Tree gets the client as a third dimension (its `clients` rowid, exact in the R*Tree's
 * 32-bit floats up to 16 million clients): a search in one client's POIs then walks that client's
 * part of the tree only, so a small client's `get_near` or map view costs what its own POIs cost,
 * however many POIs another client has in the same place. Each entry spans rowid ± 0.25: with no
 * extent in that dimension every box would have zero volume, and the R* heuristics, which choose
 * subtrees and splits by volume, would build a tree of boxes that all overlap.
 */
export const migration006: Migration = {
  version: 6,
  name: 'R*Tree per client',
  up(db) {
    db.exec(`
      DROP TRIGGER pois_rtree_insert;
      DROP TRIGGER pois_rtree_move;
      DROP TRIGGER pois_rtree_delete;
      DROP TABLE pois_rtree;
      CREATE VIRTUAL TABLE pois_rtree USING rtree(id, min_lat, max_lat, min_lng, max_lng, min_client, max_client);
      INSERT INTO pois_rtree
        SELECT p.id, p.lat, p.lat, p.lng, p.lng, c.rowid - 0.25, c.rowid + 0.25 FROM pois p JOIN clients c ON c.id = p.client_id;
      CREATE TRIGGER pois_rtree_insert AFTER INSERT ON pois BEGIN
        INSERT INTO pois_rtree SELECT NEW.id, NEW.lat, NEW.lat, NEW.lng, NEW.lng, c.rowid - 0.25, c.rowid + 0.25 FROM clients c WHERE c.id = NEW.client_id;
      END;
      CREATE TRIGGER pois_rtree_move AFTER UPDATE OF lat, lng ON pois BEGIN
        UPDATE pois_rtree SET min_lat = NEW.lat, max_lat = NEW.lat, min_lng = NEW.lng, max_lng = NEW.lng WHERE id = NEW.id;
      END;
      CREATE TRIGGER pois_rtree_delete AFTER DELETE ON pois BEGIN
        DELETE FROM pois_rtree WHERE id = OLD.id;
      END;
    `);
  },
};
