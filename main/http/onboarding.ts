import { X509Certificate } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { isLoopbackHost } from '../../shared/loopback.js';
import type { LocalAuthority } from '../core/tls/authority.js';

/** Where a device downloads the data folder's authority: as text, and as the DER file phones install. */
export const CA_PATHS = { pem: '/ca.pem', der: '/ca.crt' } as const;
const CA_FILE_NAME = 'poi-admin-local-ca.crt';
/** Where the page for connecting a phone is: the listener's `/`, or `/connect` where the admin UI holds `/` (cli serve). */
export const ONBOARDING_PATHS = { alone: '/', besideConsole: '/connect' } as const;

/** A page of its own markup and style only: nothing loaded from elsewhere, no script. */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

export interface OnboardingOptions {
  authority: LocalAuthority | undefined;
  /** The page's own path: `/`, or `/connect` where the admin UI holds `/`. */
  path: string;
  /** The API's base URLs as the listener is reached now. */
  bases: () => { http: string[]; https: string[] };
}

const NETWORK_SECURITY_CONFIG = `<network-security-config>
  <debug-overrides>
    <trust-anchors>
      <certificates src="user" />
    </trust-anchors>
  </debug-overrides>
</network-security-config>`;

/** Addresses that are the phone itself once typed on the phone: left off the page. */
const forPhone = (urls: string[]): string[] => urls.filter((url) => !isLoopbackHost(new URL(url).hostname));

const list = (items: string[], none: string): string =>
  items.length === 0 ? `<p>${escapeHtml(none)}</p>` : `<ul>${items.map((i) => `<li><code>${escapeHtml(i)}</code></li>`).join('')}</ul>`;

const LOCAL_ONLY = 'None a phone can reach: the listener answers this computer only. Choose Local network in the Listener panel, or start it with --host 0.0.0.0.';

/** The page, written for the person holding the phone. Everything put in is escaped. */
export function onboardingPage(bases: { http: string[]; https: string[] }, fingerprint: string | undefined): string {
  const ca = fingerprint
    ? `<p><a href="${CA_PATHS.der}">Download the certificate (for phones)</a> · <a href="${CA_PATHS.pem}">as PEM text</a></p>
<p>Its SHA-256 fingerprint, to compare with what the phone shows: <code>${escapeHtml(fingerprint)}</code></p>`
    : '<p>This listener has no certificate authority (its data is in memory), so it has no HTTPS.</p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Connect a phone to the POI API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:0 auto;padding:1rem}code,pre{font-family:ui-monospace,monospace;overflow-wrap:anywhere}pre{background:#f3f3f3;padding:.5rem;overflow-x:auto}a{display:inline-block;min-height:44px;line-height:44px}</style>
</head><body>
<h1>Connect a phone to the POI API</h1>
<h2>The API's addresses</h2>
<p>Over HTTP:</p>
${list(forPhone(bases.http), LOCAL_ONLY)}
<p>Over HTTPS:</p>
${list(forPhone(bases.https), bases.https.length === 0 ? 'None: HTTPS is off. Turn it on in the Listener panel, or start the listener with --https-port.' : LOCAL_ONLY)}
<p><a href="/1/reference">The API reference</a> · <a href="/1/openapi.json">its OpenAPI description</a></p>
<h2>Trust this computer's certificate</h2>
<p>HTTPS here uses a certificate made by this computer, not by a public authority. A phone trusts it once you install this certificate authority on it.</p>
${ca}
<h3>Android</h3>
<ol>
<li>Open this page on the phone and download the certificate.</li>
<li>Open Settings, then Security (or Security and privacy), More security settings, Encryption and credentials, Install a certificate, CA certificate. Choose the file you downloaded.</li>
<li>Apps trust certificates you install only if they say so. In your app's debug build, add <code>res/xml/network_security_config.xml</code>:
<pre>${escapeHtml(NETWORK_SECURITY_CONFIG)}</pre>
and <code>android:networkSecurityConfig="@xml/network_security_config"</code> to the <code>&lt;application&gt;</code> element of its manifest.</li>
</ol>
<h3>iPhone and iPad</h3>
<ol>
<li>Open this page in Safari and download the certificate. Allow the profile to download.</li>
<li>Open Settings, then General, VPN and Device Management. Choose the downloaded profile and install it.</li>
<li>Open Settings, then General, About, Certificate Trust Settings. Turn on full trust for the certificate you installed.</li>
</ol>
</body></html>`;
}

/**
 * The listener's page for connecting a phone, and the authority's certificate it links to. Served
 * over plain HTTP too: a device fetches the certificate before it can trust HTTPS. The
 * certificate is public; the authority's key is never read here.
 */
export function mountOnboarding(app: FastifyInstance, options: OnboardingOptions): void {
  const { authority } = options;
  // The certificate's DER and fingerprint, worked out once per certificate.
  let parsed: { pem: string; der: Buffer; fingerprint: string } | undefined;
  const parse = (pem: string): { der: Buffer; fingerprint: string } => {
    if (parsed?.pem !== pem) {
      const cert = new X509Certificate(pem);
      parsed = { pem, der: cert.raw, fingerprint: cert.fingerprint256 };
    }
    return parsed;
  };
  const page = async (_request: unknown, reply: FastifyReply): Promise<FastifyReply> => {
    const pem = authority ? await authority.certificatePem() : undefined;
    const fingerprint = pem === undefined ? undefined : parse(pem).fingerprint;
    return reply
      .header('content-security-policy', PAGE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(onboardingPage(options.bases(), fingerprint));
  };
  // `/connect` answers everywhere, so that one address works whichever host serves the listener.
  for (const path of new Set([options.path, ONBOARDING_PATHS.besideConsole])) app.get(path, page);
  if (!authority) return;
  app.get(CA_PATHS.pem, async (_request, reply) =>
    reply.type('application/x-pem-file').header('x-content-type-options', 'nosniff').send(await authority.certificatePem()),
  );
  app.get(CA_PATHS.der, async (_request, reply) =>
    reply
      .type('application/x-x509-ca-cert')
      .header('content-disposition', `attachment; filename="${CA_FILE_NAME}"`)
      .send(parse(await authority.certificatePem()).der),
  );
}
