import { describe, expect, it } from 'vitest';
import { createInvoke, fixedListener } from '../../main/app/console.js';
import { externalLink } from '../../main/desktop/external-links.js';
import { testCore } from '../support/core.js';

describe('which links the desktop app opens in the system browser', () => {
  it('opens a plain https or http link the user clicked', () => {
    expect(externalLink('https://www.openstreetmap.org/copyright', true)).toEqual({ open: true, url: 'https://www.openstreetmap.org/copyright' });
    expect(externalLink('http://example.org/a?b=c#d', true)).toEqual({ open: true, url: 'http://example.org/a?b=c#d' });
  });

  it('opens nothing the user did not click', () => {
    expect(externalLink('https://www.openstreetmap.org/copyright', false)).toMatchObject({ open: false, reason: expect.stringMatching(/click/) });
  });

  it.each([
    'file:///etc/passwd',
    'javascript:alert(1)',
    'smb://attacker.example/share',
    'ms-msdt:/id PCWDiagnostic',
    'poi-app://renderer/index.html',
    'data:text/html,<script>1</script>',
    'vbscript:msgbox',
    'mailto:someone@example.org',
    'ftp://example.org/file',
    '//example.org/no-scheme',
    'not a url',
    '',
    ' https://example.org/leading-space-is-fine-for-URL-but-not-for-us',
  ])('refuses %j', (url) => {
    expect(externalLink(url, true).open).toBe(false);
  });

  it('refuses credentials in the URL, which can disguise where it goes', () => {
    expect(externalLink('https://www.openstreetmap.org@evil.example/', true).open).toBe(false);
    expect(externalLink('https://user:pass@example.org/', true).open).toBe(false);
  });

  it('refuses over-long URLs and control characters', () => {
    expect(externalLink(`https://example.org/${'a'.repeat(3000)}`, true).open).toBe(false);
    expect(externalLink('https://example.org/\u0000x', true).open).toBe(false);
    expect(externalLink('https://exa\nmple.org/', true).open).toBe(false);
  });

  it('opens the normalised URL, not the string it was given', () => {
    expect(externalLink('HTTPS://Example.ORG/a', true)).toEqual({ open: true, url: 'https://example.org/a' });
    // An internationalised host goes out in its ASCII form, the one that names the real server.
    expect(externalLink('https://bücher.example/', true)).toEqual({ open: true, url: 'https://xn--bcher-kva.example/' });
  });
});

describe('app.openExternal outside the desktop app', () => {
  it('is refused: a browser opens links itself, and nothing else may open them for it', async () => {
    const core = testCore();
    const listener = fixedListener(() => ({ enabled: false, port: 1, scope: 'local', state: 'stopped', addresses: [], error: null }));
    const invoke = createInvoke(core, listener, () => undefined);
    expect(await invoke('app.openExternal', { url: 'https://www.openstreetmap.org/copyright' })).toMatchObject({
      ok: false,
      error: { code: 403, description: 'EXCEPTION_FORBIDDEN', parameter: 'url' },
    });
    core.close();
  });
});
