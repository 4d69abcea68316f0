import { randomUUID } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import { z } from 'zod';
import { clientName } from '../../../shared/schemas/members.js';
import { sameNameKey } from '../../../shared/text-fold.js';
import { formatIso } from '../../../shared/time.js';
import type { ClientSummary, NewClient } from '../../../shared/wire.js';
import type { Clock } from '../clock.js';
import { ServiceError, validate } from '../errors.js';
import { CONSOLE, type WritePath } from '../store/write-path.js';
import { isGuid, type Tokens } from '../tokens/tokens.js';

export interface ClientRow {
  id: string;
  name: string;
  implicit_flow: 0 | 1;
  created_at: number;
}

const clientNameInput = z.object({ name: clientName });

const summary = (row: ClientRow): ClientSummary => ({
  client_id: row.id,
  name: row.name,
  implicit_flow: row.implicit_flow === 1,
  created: formatIso(row.created_at),
});

/** Client applications: each is a separate membership database keyed by its client_id (api_key). */
export class Clients {
  private readonly insert: Statement;
  private readonly byId: Statement<[string], ClientRow>;
  private readonly all: Statement<[], ClientRow>;
  private readonly setFlow: Statement;

  /** Client applications are the operator's: every change here is the console's. */
  constructor(
    db: Database,
    private readonly writes: WritePath,
    private readonly clock: Clock,
    private readonly tokens: Tokens,
  ) {
    this.insert = db.prepare('INSERT INTO clients (id, name, implicit_flow, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
    this.byId = db.prepare('SELECT id, name, implicit_flow, created_at FROM clients WHERE id = ?');
    this.all = db.prepare('SELECT id, name, implicit_flow, created_at FROM clients ORDER BY created_at, rowid');
    this.setFlow = db.prepare('UPDATE clients SET implicit_flow = ?, updated_at = ? WHERE id = ?');
  }

  /** Creates the client and its permanent administrator token, in one transaction. */
  /** `id`: a client application that exists elsewhere already (the central's, on a desktop's first sync). */
  create(input: { name: string; implicitFlow?: boolean; id?: string }): NewClient {
    const { name } = validate(clientNameInput, { name: input.name });
    const id = input.id ?? randomUUID();
    const implicitFlow = input.implicitFlow === true;
    const adminToken = this.writes.now(CONSOLE, () => {
      // Inside the write; a check rather than a unique index, so databases that already hold two
      // clients of one name still open (the picker tells them apart by their client_id).
      const key = sameNameKey(name);
      const twin = this.all.all().find((row) => sameNameKey(row.name) === key);
      if (twin) throw new ServiceError('ALREADY_EXISTS', `a client application is already named “${twin.name}” (${twin.id})`, 'name');
      const now = this.clock.now();
      this.insert.run(id, name, implicitFlow ? 1 : 0, now, now);
      return this.tokens.issue(id, 'admin', null, null);
    });
    return { client_id: id, name, implicit_flow: implicitFlow, admin_token: adminToken };
  }

  list(): ClientSummary[] {
    return this.all.all().map(summary);
  }

  /** api_keys are GUIDs; clients may send them upper-case. */
  find(clientId: string): ClientRow | undefined {
    return isGuid(clientId) ? this.byId.get(clientId.toLowerCase()) : undefined;
  }

  /** The id of a client application the console names, or 404. */
  requireId(clientId: string): string {
    const row = this.find(clientId);
    if (!row) throw new ServiceError('NOT_FOUND', 'no such client application', 'clientId');
    return row.id;
  }

  /** The client named by an api_key, or 401 INVALID_API_KEY. */
  requireByApiKey(apiKey: string | undefined): ClientRow {
    if (apiKey === undefined || apiKey === '') {
      throw new ServiceError('MISSING_PARAMETER', 'api_key is required', 'api_key');
    }
    const row = this.find(apiKey);
    if (!row) throw new ServiceError('INVALID_API_KEY', 'the api_key names no client application', 'api_key');
    return row;
  }

  summary(clientId: string): ClientSummary {
    const row = this.find(clientId);
    if (!row) throw new ServiceError('NOT_FOUND', 'no such client application', 'client_id');
    return summary(row);
  }

  setImplicitFlow(clientId: string, enabled: boolean): ClientSummary {
    const row = this.find(clientId);
    if (!row) throw new ServiceError('NOT_FOUND', 'no such client application', 'client_id');
    this.writes.now(CONSOLE, () => this.setFlow.run(enabled ? 1 : 0, this.clock.now(), row.id));
    return summary({ ...row, implicit_flow: enabled ? 1 : 0 });
  }

  /** Revokes the current administrator token and returns a new one, atomically. */
  rotateAdminToken(clientId: string): string {
    const row = this.find(clientId);
    if (!row) throw new ServiceError('NOT_FOUND', 'no such client application', 'client_id');
    return this.writes.now(CONSOLE, () => {
      this.tokens.revokeAdmin(row.id);
      return this.tokens.issue(row.id, 'admin', null, null);
    });
  }
}
