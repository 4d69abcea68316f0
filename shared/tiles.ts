/**
 * Where a tile server may be reached over plain http: this computer and the local network, where
 * a field team runs its own (on a laptop, a Raspberry Pi in the truck). Anywhere else, https.
 * IPv4 only for addresses: a Content-Security-Policy source cannot name an IPv6 literal.
 */
function isLocalHost(hostname: string): boolean {
  if (hostname === 'localhost' || hostname.endsWith('.localhost') || hostname.endsWith('.local')) return true;
  const ip = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname)?.slice(1).map(Number);
  if (!ip || ip.some((n) => n > 255)) return false;
  const a = ip[0]!;
  const b = ip[1]!;
  // Loopback (127/8), private (10/8, 172.16/12, 192.168/16: RFC 1918), link-local (169.254/16).
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
}

/**
 * The Content-Security-Policy source that allows images from a tile URL template, or null when
 * the template names no tile server this application accepts: https anywhere, http only to a
 * local host (above). Leaflet's `{s}` subdomain placeholder widens to `*` (https only); the path
 * stays out of the policy. The one rule of what a tile URL may be: the settings' schema uses it.
 *
 * The host must be the one a browser will ask: the template is parsed as the browser parses it
 * (WHATWG URL), and refused unless the parsed host is the host as written. That refuses whatever
 * a browser would rewrite: user info (`http://127.0.0.1@example.com/`), IPv4 in octal, hex or
 * one number (`http://010.0.0.1/` is 8.0.0.1), backslashes, empty labels.
 */
export function tileImageSource(template: string): string | null {
  const m = /^(https?):\/\/([^/\s]+)\//.exec(template);
  if (!m) return null;
  const scheme = m[1]!;
  const written = m[2]!.toLowerCase();
  const parts = /^((?:\{s\}\.)?[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(written);
  if (!parts) return null;
  const hostname = parts[1]!;
  let url: URL;
  try {
    url = new URL(template.replace(/\{[a-z]\}/g, 'a'));
  } catch {
    return null;
  }
  const sample = hostname.replace('{s}', 'a');
  const port = parts[2] === undefined ? undefined : Number(parts[2]);
  if (port === 0 || url.hostname !== sample) return null;
  // The URL parser drops a scheme's default port (":443" on https): the policy then names none.
  if (url.port !== (port === undefined || port === (scheme === 'https' ? 443 : 80) ? '' : String(port))) return null;
  if (sample.split('.').some((label) => label === '') || url.username !== '' || url.password !== '') return null;
  if (scheme === 'http' && (hostname.includes('{s}') || !isLocalHost(sample))) return null;
  return `${scheme}://${hostname.replace('{s}', '*')}${url.port ? `:${url.port}` : ''}`;
}
