import type { Migration } from '../migration.js';

/** Client applications, their members, and access tokens (stored as SHA-256 hashes only). */
export const migration001: Migration = {
  version: 1,
  name: 'membership',
  up(db) {
    db.exec(`
      CREATE TABLE clients (
        id            TEXT PRIMARY KEY,
        name          TEXT NOT NULL,
        implicit_flow INTEGER NOT NULL DEFAULT 0 CHECK (implicit_flow IN (0, 1)),
        created_at    INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE members (
        id             TEXT PRIMARY KEY,
        client_id      TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
        username       TEXT NOT NULL,
        username_key   TEXT NOT NULL,
        email          TEXT NOT NULL,
        email_key      TEXT NOT NULL,
        pwd_hash       TEXT NOT NULL,
        gender         TEXT NOT NULL DEFAULT 'UNDEFINED' CHECK (gender IN ('MALE', 'FEMALE', 'UNDEFINED')),
        birthday       TEXT,
        email_verified INTEGER NOT NULL DEFAULT 0 CHECK (email_verified IN (0, 1)),
        registered_at  INTEGER NOT NULL
      ) STRICT;
      CREATE UNIQUE INDEX members_username ON members (client_id, username_key);
      CREATE UNIQUE INDEX members_email ON members (client_id, email_key);
      CREATE INDEX members_by_registration ON members (client_id, registered_at);

      CREATE TABLE tokens (
        hash       BLOB PRIMARY KEY,
        client_id  TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
        member_id  TEXT REFERENCES members(id) ON DELETE CASCADE,
        role       TEXT NOT NULL CHECK (role IN ('admin', 'member')),
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER,
        CHECK ((role = 'admin') = (member_id IS NULL))
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX tokens_by_member ON tokens (member_id) WHERE member_id IS NOT NULL;
      CREATE INDEX tokens_admin_by_client ON tokens (client_id) WHERE role = 'admin';
    `);
  },
};
