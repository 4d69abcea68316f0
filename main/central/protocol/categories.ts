import type { PoolClient } from 'pg';

/**
 * Of these category references, the ones that name no category of the client application: a
 * `system:N` of no system category, a uuid of no category of this client (another client's
 * included). A POI may name only the others (shared/sync-entities.ts, `categories`).
 */
export async function unknownCategories(db: PoolClient, clientId: string, refs: readonly string[]): Promise<string[]> {
  if (refs.length === 0) return [];
  const systems = refs.filter((r) => r.startsWith('system:')).map((r) => Number(r.slice(7)));
  const own = refs.filter((r) => !r.startsWith('system:'));
  const known = new Set<string>();
  if (systems.length > 0) {
    const { rows } = await db.query<{ id: number }>('SELECT id FROM system_categories WHERE id = ANY($1::int[])', [systems]);
    rows.forEach((r) => known.add(`system:${r.id}`));
  }
  if (own.length > 0) {
    const { rows } = await db.query<{ uuid: string }>('SELECT uuid::text FROM categories WHERE client_id = $1 AND uuid = ANY($2::uuid[])', [clientId, own]);
    rows.forEach((r) => known.add(r.uuid));
  }
  return refs.filter((r) => !known.has(r));
}
