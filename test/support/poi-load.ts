import BetterSqlite3 from 'better-sqlite3';

/** What a client sent in one POI add: unique name, unique position. */
export interface SentPoi {
  name: string;
  lat: string;
  lng: string;
}

/** Every add of a load, by what came back. */
export interface LoadOutcome {
  /** Answered 200, by the id in the answer: these must survive anything. */
  acknowledged: Map<number, SentPoi>;
  /** Sent, but the connection died before a full answer: may or may not have been committed. */
  unanswered: SentPoi[];
  /** Answered with an error: must not exist. */
  refused: Array<{ sent: SentPoi; status: number; body: string }>;
}

export interface Load {
  /** No add starts after this; the ones on the wire finish or fail. */
  stop(): void;
  done: Promise<LoadOutcome>;
}

export const CATEGORY = 7;

/** The n-th POI of a run: positions from two coprime strides, so no two coincide. */
export function nthPoi(n: number): SentPoi {
  const lat = ((n * 7919) % 170_001) - 85_000;
  const lng = ((n * 104_729) % 358_001) - 179_000;
  return { name: `durable-${n}`, lat: (lat / 1000).toFixed(3), lng: (lng / 1000).toFixed(3) };
}

/**
 * One add with geocode=true, answered only once the offline geocoder's index is built: after it,
 * a fresh process's start-up work (a few hundred ms of CPU) no longer stalls the load.
 */
export async function warmUp(base: string, token: string, name: string): Promise<[number, SentPoi]> {
  const sent: SentPoi = { name, lat: '40.417', lng: '-3.704' };
  const qs = new URLSearchParams({ oauth_token: token, ...sent, categories: String(CATEGORY), geocode: 'true' });
  const res = await fetch(`${base}/1/pois/add.json?${qs}`, { signal: AbortSignal.timeout(20_000) });
  const body = (await res.json()) as { id?: unknown };
  if (res.status !== 200 || typeof body.id !== 'number') throw new Error(`the warm-up add failed: ${res.status} ${JSON.stringify(body)}`);
  return [body.id, sent];
}

/** `workers` loops adding POIs back to back until stopped or until their connection dies. */
export function startAddLoad(base: string, token: string, workers: number, next: () => number): Load {
  let stopped = false;
  const outcome: LoadOutcome = { acknowledged: new Map(), unanswered: [], refused: [] };
  const loop = async (): Promise<void> => {
    while (!stopped) {
      const sent = nthPoi(next());
      const qs = new URLSearchParams({ oauth_token: token, ...sent, categories: String(CATEGORY) });
      let status: number;
      let text: string;
      try {
        const res = await fetch(`${base}/1/pois/add.json?${qs}`, { signal: AbortSignal.timeout(15_000) });
        status = res.status;
        text = await res.text();
      } catch {
        outcome.unanswered.push(sent);
        return; // the server is gone: this loop is done
      }
      if (status !== 200) {
        outcome.refused.push({ sent, status, body: text.slice(0, 300) });
        continue;
      }
      const id = (JSON.parse(text) as { id?: unknown }).id;
      if (typeof id !== 'number') throw new Error(`an add answered 200 without an id: ${text.slice(0, 300)}`);
      outcome.acknowledged.set(id, sent);
    }
  };
  const done = Promise.all(Array.from({ length: workers }, loop)).then(() => outcome);
  return {
    stop: () => {
      stopped = true;
    },
    done,
  };
}

/** How a stored or served POI differs from what was sent, or undefined if it does not. */
function difference(sent: SentPoi, got: { name: unknown; lat: unknown; lng: unknown; categories: unknown }): string | undefined {
  const want = { name: sent.name, lat: Number(sent.lat), lng: Number(sent.lng), categories: [CATEGORY] };
  const same =
    got.name === want.name &&
    got.lat === want.lat &&
    got.lng === want.lng &&
    JSON.stringify(got.categories) === JSON.stringify(want.categories);
  return same ? undefined : `sent ${JSON.stringify(want)}, found ${JSON.stringify(got)}`;
}

/** Reads every acknowledged POI back through get.json; returns what is missing or altered. */
export async function checkServed(base: string, token: string, acknowledged: Map<number, SentPoi>, concurrency = 16): Promise<string[]> {
  const problems: string[] = [];
  const entries = [...acknowledged];
  let i = 0;
  const worker = async (): Promise<void> => {
    for (let k = i++; k < entries.length; k = i++) {
      const [id, sent] = entries[k]!;
      const res = await fetch(`${base}/1/pois/get.json?${new URLSearchParams({ oauth_token: token, poi: String(id) })}`);
      const body = (await res.json()) as Record<string, unknown>;
      if (res.status !== 200) {
        problems.push(`POI ${id} (${sent.name}) was acknowledged but get.json answers ${res.status} ${String(body.description)}`);
        continue;
      }
      const listed: unknown = body.categories;
      const categories = Array.isArray(listed) ? (listed as Array<{ Id?: unknown }>).map((c) => c.Id) : listed;
      const diff = difference(sent, { name: body.name, lat: body.latitude, lng: body.longitude, categories });
      if (diff) problems.push(`POI ${id} was acknowledged but is altered: ${diff}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return problems;
}

export interface DatabaseReport {
  integrity: string[];
  foreignKeys: number;
  pois: number;
  rtree: number;
  problems: string[];
}

/**
 * Opens the (closed) database read-only: integrity, and the POIs against what was sent.
 * Every acknowledged POI is there and intact; every POI there was sent and not refused.
 */
export function checkDatabase(
  file: string,
  acknowledged: Map<number, SentPoi>,
  unanswered: readonly SentPoi[],
  refused: readonly SentPoi[],
): DatabaseReport {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: false }) as Array<{ integrity_check: string }>;
    const foreignKeys = (db.pragma('foreign_key_check') as unknown[]).length;
    const rows = db
      .prepare(
        `SELECT p.id, p.name, p.lat, p.lng, (SELECT json_group_array(category_id) FROM
           (SELECT category_id FROM poi_categories WHERE poi_id = p.id ORDER BY category_id)) AS categories
         FROM pois p ORDER BY p.id`,
      )
      .all() as Array<{ id: number; name: string; lat: number; lng: number; categories: string }>;
    const rtree = (db.prepare('SELECT count(*) AS n FROM pois_rtree').get() as { n: number }).n;

    const problems: string[] = [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [id, sent] of acknowledged) {
      const row = byId.get(id);
      if (!row) {
        problems.push(`POI ${id} (${sent.name}) was acknowledged but is not in the database`);
        continue;
      }
      const diff = difference(sent, { ...row, categories: JSON.parse(row.categories) as unknown });
      if (diff) problems.push(`POI ${id} was acknowledged but is altered in the database: ${diff}`);
    }
    const mayExist = new Set([...acknowledged.values(), ...unanswered].map((s) => s.name));
    const mustNot = new Set(refused.map((s) => s.name));
    const names = new Set<string>();
    for (const row of rows) {
      if (names.has(row.name)) problems.push(`two POIs named ${row.name}`);
      names.add(row.name);
      if (mustNot.has(row.name)) problems.push(`POI ${row.id} (${row.name}) exists although its add was refused`);
      else if (!mayExist.has(row.name)) problems.push(`POI ${row.id} (${row.name}) exists but was never sent`);
    }
    return { integrity: integrity.map((r) => r.integrity_check), foreignKeys, pois: rows.length, rtree, problems };
  } finally {
    db.close();
  }
}
