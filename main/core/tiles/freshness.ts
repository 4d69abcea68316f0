/** How long a tile the server sent may be used without asking again (RFC 9111, as a private cache). */
export function freshUntil(headers: Headers, now: number): { store: boolean; expiresAt: number } {
  const control = (headers.get('cache-control') ?? '').toLowerCase();
  if (/(^|,)\s*no-store\b/.test(control)) return { store: false, expiresAt: now };
  if (/(^|,)\s*no-cache\b/.test(control)) return { store: true, expiresAt: now };
  const maxAge = /(^|,)\s*max-age\s*=\s*"?(\d+)/.exec(control);
  if (maxAge) return { store: true, expiresAt: now + Number(maxAge[2]) * 1000 };
  const expires = Date.parse(headers.get('expires') ?? '');
  if (Number.isFinite(expires)) return { store: true, expiresAt: Math.max(now, expires) };
  // No word from the server: a tenth of the time since the tile last changed, at most a day.
  const modified = Date.parse(headers.get('last-modified') ?? '');
  const heuristic = Number.isFinite(modified) ? Math.min((now - modified) / 10, DAY) : DAY;
  return { store: true, expiresAt: now + Math.max(0, heuristic) };
}

const DAY = 24 * 3600 * 1000;
