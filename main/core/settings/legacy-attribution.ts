/** The few entities a hand-written attribution uses; anything else stays as written. */
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", nbsp: ' ', copy: '©' };

/**
 * Map settings stored before the attribution became text and a link held it as HTML (the
 * default was `&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a>
 * contributors`): its text without tags, its first link as the link. Today's shape passes through.
 */
export function fromHtmlAttribution(stored: unknown): unknown {
  if (typeof stored !== 'object' || stored === null || 'tileAttributionUrl' in stored) return stored;
  const html = 'tileAttribution' in stored && typeof stored.tileAttribution === 'string' ? stored.tileAttribution : '';
  const link = /href\s*=\s*["']([^"']+)["']/i.exec(html)?.[1] ?? '';
  const text = html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#39|[a-z]+);/gi, (entity: string, name: string) => ENTITIES[name.toLowerCase()] ?? entity)
    .replace(/\s+/g, ' ')
    .trim();
  return { ...stored, tileAttribution: text, tileAttributionUrl: /^https?:\/\//.test(link) ? link : '' };
}
