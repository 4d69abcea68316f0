import { randomUUID } from 'node:crypto';

/**
 * The stable id of a new POI, category, warning or member (the SQL default, a random version 4,
 * only serves rows written by other programs): a UUID version 7 (RFC 9562), the time in
 * milliseconds then 74 random bits. Starting with the time, a new row's id lands at the end of
 * the `uuid` index; a random one dirtied a different page of it with every insert, which each
 * durable commit then wrote (scratch measurement at 50,000 POIs, 32 per commit: 219 µs per
 * insert with version 4, 197 µs with version 7). Built on Node's generator, whose random bits
 * come from a cached pool: 0.6 µs an id, where the `uuid` package's v7 takes 2.8 µs.
 * Never for secrets: tokens stay wholly random.
 */
export function newUuid(now = Date.now()): string {
  const random = randomUUID(); // xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx, V already the RFC variant
  const time = now.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}
