import type { Migration } from '../migration.js';

/**
 * Long work as jobs (docs/imports.md#an-import-is-a-job): each job's row, written when it starts
 * and when it ends, so that its report can be read later and a job the process died in is found at
 * the next start and its writes undone: its process is gone (`pid`), or it is this pid but another
 * start of it (`instance`: a container's process is pid 1 at every start), or the job has not been
 * seen alive for a minute (`seen_at`: the pid may have been given to another program). Bookkeeping,
 * not data: not logged.
 */
export const migration015: Migration = {
  version: 15,
  name: 'jobs',
  up(db) {
    db.exec(`
      CREATE TABLE jobs (
        id          TEXT PRIMARY KEY,
        kind        TEXT NOT NULL,
        client_id   TEXT REFERENCES clients(id) ON DELETE CASCADE,
        label       TEXT NOT NULL,
        target      TEXT,
        state       TEXT NOT NULL,
        pid         INTEGER NOT NULL,
        instance    TEXT NOT NULL,
        seen_at     INTEGER NOT NULL,
        started_at  INTEGER NOT NULL,
        ended_at    INTEGER,
        progress    TEXT NOT NULL,
        report      TEXT,
        error       TEXT
      ) STRICT;
      CREATE INDEX jobs_by_start ON jobs(started_at);
    `);
  },
};
