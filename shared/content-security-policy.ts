/**
 * The CSP of the admin UI, wherever it is served from (browser mode's HTTP console, Electron's
 * poi-app:// protocol): our own code only; tiles from the tile server as images, nothing else.
 */
export function contentSecurityPolicy(tileOrigins: string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    // Leaflet positions tiles and markers with inline style attributes.
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob: ${tileOrigins.join(' ')}`.trim(),
    "connect-src 'self'",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
