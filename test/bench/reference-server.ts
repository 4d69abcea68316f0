import BetterSqlite3 from 'better-sqlite3';
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { foldText } from '../../shared/text-fold.js';
import { newUuid } from '../../main/core/store/new-uuid.js';
import { fingerprint } from '../../shared/sync-entities.js';

/**
 * The minimal reference of the HTTP figures: get.json and add.json written
 * plainly with node:http and better-sqlite3 over the service's own database file, doing the work
 * the service must do and nothing else: the same token check (SHA-256 of the token, its row by
 * hash, revoked or expired refused; on a write, checked again inside it), the same statements
 * (the POI row, its categories, its report counts, in one read transaction; one INSERT whose
 * triggers keep the R*Tree, the category links, the map grid and the change log), the same reply
 * bytes, and the same group commit (the writes of one event-loop turn in one IMMEDIATE
 * transaction, a savepoint each, answered after the COMMIT with synchronous=FULL). No framework,
 * no schema validation, no request log: what the service spends beyond this is its own overhead.
 * The bench checks that both answer the same bytes for the same POI. Run as a child process by
 * test/bench/http-bench.ts: `tsx test/bench/reference-server.ts DB_FILE`.
 */
const db = new BetterSqlite3(process.argv[2]!);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');
// The change log's triggers ask who writes and when (main/core/store/write-path.ts).
let actor: { kind: string; id: string | null } | undefined;
db.function('change_now', { deterministic: false }, () => Date.now());
db.function('change_actor_kind', { deterministic: false }, () => actor?.kind ?? 'system');
db.function('change_actor_id', { deterministic: false }, () => actor?.id ?? null);
db.function('change_undoes', { deterministic: false }, () => null);
// Each change's own id (sync's operation id, migration 014), drawn as the service draws it: the same work.
db.function('change_op_id', { deterministic: false }, () => newUuid());
db.function('change_fingerprint', { deterministic: true }, (value: unknown) => fingerprint(String(value)));

interface TokenRow {
  client_id: string;
  member_id: string | null;
  role: string;
  expires_at: number | null;
  revoked_at: number | null;
}
interface CategoryRow {
  id: number;
  client_id: string | null;
  description: string;
  deleted_at?: number | null;
}
interface PoiRow {
  id: number;
  uuid: string;
  name: string;
  description: string | null;
  lat: number;
  lng: number;
  category_ids: string;
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
  registered_at: number;
  updated_at: number;
}

const tokenByHash = db.prepare<[Buffer], TokenRow>('SELECT client_id, member_id, role, expires_at, revoked_at FROM tokens WHERE hash = ?');
const revokedAt = db.prepare<[Buffer], { revoked_at: number | null }>('SELECT revoked_at FROM tokens WHERE hash = ?');
const poiById = db.prepare<[string, number], PoiRow>(
  'SELECT id, uuid, client_id, name, description, lat, lng, elevation, accuracy, vaccuracy, address, cross_street, city, country, postal_code, phone, twitter, category_ids, created_by, registered_at, updated_at FROM pois WHERE client_id = ? AND id = ?',
);
const warningsOf = db.prepare<[number], { type: string; n: number }>('SELECT poi_id, type, count(*) AS n FROM warnings WHERE poi_id = ? GROUP BY poi_id, type');
const categoryById = db.prepare<[number], CategoryRow>('SELECT id, client_id, description, deleted_at FROM categories WHERE id = ?');
const insertPoi = db.prepare(
  `INSERT INTO pois (uuid, client_id, name, description, lat, lng, elevation, accuracy, vaccuracy, address, cross_street, city, country, postal_code, phone, twitter, category_ids, created_by, registered_at, updated_at, name_key, description_key, city_key, country_key, postal_code_key)
   VALUES (@uuid, @client_id, @name, NULL, @lat, @lng, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, @category_ids, @created_by, @now, @now, @name_key, NULL, NULL, NULL, NULL)`,
);

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
  ) {
    super(description);
  }
}

const iso = (ms: number): string => new Date(ms).toISOString().replace('Z', '+00:00');
const category = (c: CategoryRow) => ({ Id: c.id, Description: c.description, is_system_category: c.client_id === null });
const reply = (p: PoiRow, categories: CategoryRow[], warnings: Record<string, number>) => ({
  id: p.id,
  uuid: p.uuid,
  name: p.name,
  description: p.description,
  latitude: p.lat,
  longitude: p.lng,
  elevation: p.elevation,
  accuracy: p.accuracy,
  vaccuracy: p.vaccuracy,
  address: p.address,
  cross_street: p.cross_street,
  city: p.city,
  country: p.country,
  postal_code: p.postal_code,
  phone: p.phone,
  twitter: p.twitter,
  registertime: iso(p.registered_at),
  categories: categories.map(category),
  last_update: iso(p.updated_at),
  warnings: { closed: warnings.CLOSED ?? 0, duplicated: warnings.DUPLICATED ?? 0, wrong_indicator: warnings.WRONG_INDICATOR ?? 0, wrong_info: warnings.WRONG_INFO ?? 0 },
});

function caller(params: URLSearchParams): TokenRow & { hash: Buffer } {
  const token = params.get('oauth_token') ?? params.get('access_token');
  if (!token) throw new Refusal(401, 'EXCEPTION_TOKEN_REQUIRED');
  const hash = createHash('sha256').update(token.toLowerCase()).digest();
  const row = tokenByHash.get(hash);
  if (!row || row.revoked_at !== null || (row.expires_at !== null && row.expires_at <= Date.now())) throw new Refusal(401, 'EXCEPTION_TOKEN_NOT_VALID');
  return { ...row, hash };
}

const readTx = db.transaction(<T>(work: () => T): T => work());

function get(params: URLSearchParams): unknown {
  const id = Number(params.get('poi'));
  if (!Number.isSafeInteger(id) || id <= 0) throw new Refusal(400, 'EXCEPTION_INVALID_PARAMETER');
  // The token's row too, as the service reads it: in the request's read transaction.
  return readTx(() => {
    const who = caller(params);
    const poi = poiById.get(who.client_id, id);
    if (!poi) throw new Refusal(404, 'EXCEPTION_NOT_FOUND');
    const warnings: Record<string, number> = {};
    for (const w of warningsOf.all(id)) warnings[w.type] = w.n;
    // As the service: the categories named by the row's own list.
    const categories = (JSON.parse(poi.category_ids) as number[]).map((c) => categoryById.get(c)).filter((c): c is CategoryRow => c !== undefined);
    return reply(poi, categories, warnings);
  });
}

// Group commit, as main/core/store/write-path.ts: the writes of one turn, one COMMIT.
interface Pending {
  work: () => unknown;
  done: (outcome: { ok: true; value: unknown } | { ok: false; error: unknown }) => void;
}
let queue: Pending[] = [];
const savepoint = db.transaction((work: () => unknown) => work());
const batch = db.transaction((items: Pending[]) =>
  items.map((item) => {
    try {
      return { ok: true as const, value: savepoint(item.work) };
    } catch (error) {
      return { ok: false as const, error };
    }
  }),
);
function write(work: () => unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (queue.length === 0) {
      setImmediate(() => {
        const items = queue;
        queue = [];
        const outcomes = batch.immediate(items);
        items.forEach((item, i) => item.done(outcomes[i]!));
      });
    }
    queue.push({ work, done: (o) => (o.ok ? resolve(o.value) : reject(o.error)) });
  });
}

async function add(params: URLSearchParams): Promise<unknown> {
  const who = caller(params);
  const lat = Number(params.get('lat') || NaN);
  const lng = Number(params.get('lng') || NaN);
  const name = params.get('name') ?? '';
  const listed = params.get('categories') ?? '';
  const ids = [...new Set(listed === '' ? [] : listed.split(',').map(Number))].sort((a, b) => a - b);
  if (!(Math.abs(lat) <= 90) || !(Math.abs(lng) <= 180) || name === '' || ids.some((n) => !Number.isSafeInteger(n) || n <= 0)) {
    throw new Refusal(400, 'EXCEPTION_INVALID_PARAMETER');
  }
  const now = Date.now();
  const time = now.toString(16).padStart(12, '0');
  const row = { uuid: `${time.slice(0, 8)}-${time.slice(8)}-7${randomUUID().slice(15)}`, client_id: who.client_id, name, lat, lng, category_ids: JSON.stringify(ids), created_by: who.member_id, now, name_key: foldText(name) };
  const [id, categories] = (await write(() => {
    actor = who.member_id ? { kind: 'member', id: who.member_id } : { kind: 'administrator', id: null };
    try {
      if (revokedAt.get(who.hash)?.revoked_at !== null) throw new Refusal(401, 'EXCEPTION_TOKEN_NOT_VALID');
      const usable = ids.map((n) => {
        const c = categoryById.get(n);
        if (!c || c.deleted_at !== null || (c.client_id !== null && c.client_id !== who.client_id)) throw new Refusal(404, 'EXCEPTION_NOT_FOUND');
        return c;
      });
      return [Number(insertPoi.run(row).lastInsertRowid), usable] as const;
    } finally {
      actor = undefined;
    }
  })) as readonly [number, CategoryRow[]];
  const nulls = { description: null, elevation: null, accuracy: null, vaccuracy: null, address: null, cross_street: null, city: null, country: null, postal_code: null, phone: null, twitter: null };
  return reply({ ...row, ...nulls, id, registered_at: now, updated_at: now }, categories, {});
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const bytes = Buffer.from(JSON.stringify(body));
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length });
  response.end(bytes);
}

const server = createServer((request, response) => {
  const url = request.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  const answer = async (): Promise<unknown> => {
    if (path === '/1/pois/get.json') return get(params);
    if (path === '/1/pois/add.json') return add(params);
    throw new Refusal(404, 'EXCEPTION_NOT_FOUND');
  };
  answer().then(
    (body) => send(response, 200, body),
    (error: unknown) => {
      const refusal = error instanceof Refusal ? error : new Refusal(500, String(error));
      send(response, refusal.status, { code: refusal.status, description: refusal.description });
    },
  );
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`reference listening on ${typeof address === 'object' && address ? address.port : 0}`);
});
const stop = (): void => {
  server.closeAllConnections();
  server.close(() => {
    db.close();
    process.exit(0);
  });
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
