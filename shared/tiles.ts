/**
 * The CSP source that allows images from a tile URL template: its origin, with Leaflet's `{s}`
 * subdomain placeholder widened to `*`. Anything else in the template stays out of the policy.
 */
export function tileImageSource(template: string): string | null {
  const m = /^https:\/\/([^/\s]+)\//.exec(template);
  if (!m) return null;
  const host = m[1]!.replace(/\{s\}/g, '*');
  if (!/^(\*\.)?[a-z0-9.-]+(:\d+)?$/i.test(host) || host.includes('{')) return null;
  return `https://${host}`;
}
