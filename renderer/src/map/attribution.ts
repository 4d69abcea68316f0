import type { Settings } from '../../../shared/contract';
import type { MapPackage } from '../../../shared/maps';
import { covers, type ViewBox } from './packages/coverage';

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/**
 * Leaflet shows an attribution as HTML: built here from the settings' text and link, both
 * escaped, so that what an operator types is shown as typed and never runs as markup.
 */
export function attributionHtml({ tileAttribution, tileAttributionUrl }: Pick<Settings, 'tileAttribution' | 'tileAttributionUrl'>): string {
  const text = escapeHtml(tileAttribution);
  return tileAttributionUrl ? `<a href="${escapeHtml(tileAttributionUrl)}" target="_blank" rel="noopener noreferrer">${text}</a>` : text;
}

/** The credits of the packages drawn in a view (covers()), each once, as attribution HTML; none for a package without one. */
export function packageCredits(packages: readonly MapPackage[], view: ViewBox): string[] {
  const credits = packages.filter((p) => covers(p, view)).map((p) => attributionHtml({ tileAttribution: p.attribution, tileAttributionUrl: p.attributionUrl }));
  return [...new Set(credits)].filter((credit) => credit !== '');
}
