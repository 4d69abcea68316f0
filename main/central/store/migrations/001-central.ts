import type { CentralMigration } from '../migration.js';

/**
 * The central store: each desktop's data under the same identities (the UUIDs; integer ids stay
 * local to each desktop), every row with its `version` (how many times it changed: the base a
 * push is checked against) and `seq`, its place on the central's one change sequence (what a
 * pull reads after its cursor). A delete keeps the row as its tombstone (`deleted_at`), so a
 * device that was away hears of it. Members keep their password hash (never a token: tokens stay
 * on the desktop that issued them). POIs have a PostGIS `geography(Point)` beside their plain
 * coordinates, derived by the database, with a GiST index, for QGIS and spatial queries.
 * Conflicts are kept until someone resolves them; devices authenticate with a hashed secret.
 */
/** What every synced row carries: its tombstone, how many times it changed, and its place on the change sequence. */
const SYNCED_ROW = "deleted_at timestamptz, version bigint NOT NULL DEFAULT 1, seq bigint NOT NULL DEFAULT nextval('change_seq')";

export const central001: CentralMigration = {
  version: 1,
  name: 'central store',
  async up(db) {
    await db.query(`
      CREATE EXTENSION IF NOT EXISTS postgis;
      CREATE SEQUENCE change_seq;

      CREATE TABLE clients (
        id              uuid PRIMARY KEY,
        name            text NOT NULL,
        implicit_flow   boolean NOT NULL DEFAULT false,
        conflict_policy text NOT NULL DEFAULT 'last-writer-wins' CHECK (conflict_policy IN ('last-writer-wins', 'manual')),
        created_at      timestamptz NOT NULL DEFAULT now(),
        updated_at      timestamptz NOT NULL DEFAULT now(),
        ${SYNCED_ROW}
      );

      CREATE TABLE categories (
        uuid        uuid PRIMARY KEY,
        client_id   uuid NOT NULL REFERENCES clients(id),
        description text NOT NULL,
        created_at  timestamptz NOT NULL,
        updated_at  timestamptz NOT NULL,
        ${SYNCED_ROW}
      );
      CREATE INDEX categories_by_seq ON categories (client_id, seq);

      CREATE TABLE members (
        uuid           uuid PRIMARY KEY,
        client_id      uuid NOT NULL REFERENCES clients(id),
        username       text NOT NULL,
        email          text NOT NULL,
        pwd_hash       text NOT NULL,
        gender         text NOT NULL DEFAULT 'UNDEFINED' CHECK (gender IN ('MALE', 'FEMALE', 'UNDEFINED')),
        birthday       text,
        email_verified boolean NOT NULL DEFAULT false,
        registered_at  timestamptz NOT NULL,
        created_at     timestamptz NOT NULL DEFAULT now(),
        updated_at     timestamptz NOT NULL,
        ${SYNCED_ROW}
      );
      CREATE INDEX members_by_seq ON members (client_id, seq);
      CREATE UNIQUE INDEX members_username ON members (client_id, lower(username)) WHERE deleted_at IS NULL;

      CREATE TABLE pois (
        uuid          uuid PRIMARY KEY,
        client_id     uuid NOT NULL REFERENCES clients(id),
        name          text NOT NULL,
        description   text,
        lat           double precision NOT NULL CHECK (lat BETWEEN -90 AND 90),
        lng           double precision NOT NULL CHECK (lng BETWEEN -180 AND 180),
        geog          geography(Point, 4326) GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(lng, lat), 4326)::geography) STORED,
        elevation     double precision,
        accuracy      double precision,
        vaccuracy     double precision,
        address       text,
        cross_street  text,
        city          text,
        country       text,
        postal_code   text,
        phone         text,
        twitter       text,
        -- Category UUIDs, or system:N for the system categories (the same ids on every desktop).
        categories    text[] NOT NULL DEFAULT '{}',
        created_by    uuid,
        registered_at timestamptz NOT NULL,
        updated_at    timestamptz NOT NULL,
        ${SYNCED_ROW}
      );
      CREATE INDEX pois_by_seq ON pois (client_id, seq);
      CREATE INDEX pois_geog ON pois USING gist (geog);

      CREATE TABLE warnings (
        uuid       uuid PRIMARY KEY,
        client_id  uuid NOT NULL REFERENCES clients(id),
        -- No foreign key: a report may arrive for a POI that another desktop deleted meanwhile.
        poi_uuid   uuid NOT NULL,
        type       text NOT NULL CHECK (type IN ('CLOSED', 'DUPLICATED', 'WRONG_INDICATOR', 'WRONG_INFO')),
        member_id  uuid,
        -- The proposed values (WRONG_INFO, WRONG_INDICATOR) as the desktop keeps them: JSON text.
        data       text CHECK (data IS NULL OR data::jsonb IS NOT NULL),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        ${SYNCED_ROW}
      );
      CREATE INDEX warnings_by_seq ON warnings (client_id, seq);

      CREATE TABLE devices (
        id           uuid PRIMARY KEY,
        client_id    uuid NOT NULL REFERENCES clients(id),
        name         text NOT NULL,
        secret_hash  text NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        revoked_at   timestamptz,
        last_seen_at timestamptz
      );

      -- A push's operations by their ids: a retried push applies each once.
      CREATE TABLE applied_ops (
        op_id      text PRIMARY KEY,
        device_id  uuid NOT NULL REFERENCES devices(id),
        applied_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE conflicts (
        id          bigserial PRIMARY KEY,
        client_id   uuid NOT NULL REFERENCES clients(id),
        entity      text NOT NULL,
        entity_uuid uuid NOT NULL,
        field       text,
        base        jsonb,
        mine        jsonb,
        theirs      jsonb,
        device_id   uuid REFERENCES devices(id),
        at          timestamptz NOT NULL DEFAULT now(),
        resolved_at timestamptz,
        resolved_by text,
        -- What the central kept when it recorded it: the pushed value (last writer wins) or its own (manual).
        kept        text NOT NULL CHECK (kept IN ('mine', 'theirs')),
        resolution  jsonb,
        seq         bigint NOT NULL DEFAULT nextval('change_seq')
      );
      CREATE INDEX conflicts_open ON conflicts (client_id, at) WHERE resolved_at IS NULL;
    `);
  },
};
