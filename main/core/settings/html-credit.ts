import { MAX_ATTRIBUTION } from '../../../shared/contract.js';

/** The few entities a hand-written attribution uses; anything else stays as written. */
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", nbsp: ' ', copy: '©' };

const decode = (s: string): string => s.replace(/&(#39|[a-z]+);/gi, (entity: string, name: string) => ENTITIES[name.toLowerCase()] ?? entity);

/**
 * A credit written as HTML (tile servers' docs, MBTiles' `attribution`, the settings of earlier
 * versions) as the map shows credits: its text without tags, cut to the limit, and its first
 * http(s) link. The page builds the markup itself, so a credit cannot put any into it.
 */
export function creditFromHtml(html: string): { text: string; url: string } {
  const link = decode(/href\s*=\s*["']([^"']+)["']/i.exec(html)?.[1] ?? '');
  const text = decode(html.replace(/<[^>]*>/g, '')).replace(/\s+/g, ' ').trim();
  return {
    text: text.length > MAX_ATTRIBUTION ? `${text.slice(0, MAX_ATTRIBUTION - 1)}…` : text,
    url: /^https?:\/\/[^\s"'<>]+$/.test(link) ? link : '',
  };
}

/**
 * Map settings stored before the attribution became text and a link held it as HTML (the
 * default was `&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a>
 * contributors`). Today's shape passes through.
 */
export function fromHtmlAttribution(stored: unknown): unknown {
  if (typeof stored !== 'object' || stored === null || 'tileAttributionUrl' in stored) return stored;
  const html = 'tileAttribution' in stored && typeof stored.tileAttribution === 'string' ? stored.tileAttribution : '';
  const { text, url } = creditFromHtml(html);
  return { ...stored, tileAttribution: text, tileAttributionUrl: url };
}
