import { MAX_ATTRIBUTION } from '../../../shared/contract.js';

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
  const decode = (s: string): string => s.replace(/&(#39|[a-z]+);/gi, (entity: string, name: string) => ENTITIES[name.toLowerCase()] ?? entity);
  const link = decode(/href\s*=\s*["']([^"']+)["']/i.exec(html)?.[1] ?? '');
  const text = decode(html.replace(/<[^>]*>/g, '')).replace(/\s+/g, ' ').trim();
  // Earlier versions took 500 characters of HTML; the text may be longer than today's limit.
  const fits = text.length > MAX_ATTRIBUTION ? `${text.slice(0, MAX_ATTRIBUTION - 1)}…` : text;
  return { ...stored, tileAttribution: fits, tileAttributionUrl: /^https?:\/\/[^\s"'<>]+$/.test(link) ? link : '' };
}
