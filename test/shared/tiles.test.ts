import { describe, expect, it } from 'vitest';
import { mapSettings } from '../../shared/contract.js';
import { tileImageSource } from '../../shared/tiles.js';

describe('which tile servers the map accepts', () => {
  it('takes https anywhere, and http only on this computer or the local network', () => {
    const accepted: Array<[string, string]> = [
      ['https://tile.openstreetmap.org/{z}/{x}/{y}.png', 'https://tile.openstreetmap.org'],
      ['https://{s}.tile.example.org:8443/{z}/{x}/{y}.png', 'https://*.tile.example.org:8443'],
      ['http://127.0.0.1:8080/{z}/{x}/{y}.png', 'http://127.0.0.1:8080'],
      ['http://localhost:3000/tiles/{z}/{x}/{y}.webp', 'http://localhost:3000'],
      ['http://10.1.2.3/{z}/{x}/{y}.png', 'http://10.1.2.3'],
      ['http://172.16.0.9/{z}/{x}/{y}.png', 'http://172.16.0.9'],
      ['http://172.31.255.1/{z}/{x}/{y}.png', 'http://172.31.255.1'],
      ['http://192.168.1.20:8080/{z}/{x}/{y}.png', 'http://192.168.1.20:8080'],
      ['http://169.254.10.1/{z}/{x}/{y}.png', 'http://169.254.10.1'],
      ['http://Tiles.Local/{z}/{x}/{y}.png', 'http://tiles.local'],
      ['https://tiles.example.org:443/{z}/{x}/{y}.png', 'https://tiles.example.org'],
    ];
    for (const [url, source] of accepted) {
      expect(tileImageSource(url), url).toBe(source);
      expect(mapSettings.safeParse({ tileUrl: url, tileAttribution: '', tileAttributionUrl: '' }).success, url).toBe(true);
    }
    const refused = [
      'http://tile.openstreetmap.org/{z}/{x}/{y}.png', // public host over http
      'http://8.8.8.8/{z}/{x}/{y}.png',
      'http://172.32.0.1/{z}/{x}/{y}.png', // just outside 172.16/12
      'http://192.169.1.1/{z}/{x}/{y}.png',
      'http://256.1.1.1/{z}/{x}/{y}.png',
      'http://{s}.local/{z}/{x}/{y}.png', // a wildcard over http
      'http://[::1]:8080/{z}/{x}/{y}.png', // no IPv6 literal in a CSP source
      'http://localhost.example.com/{z}/{x}/{y}.png',
      'https://tiles.example.org:99999/{z}/{x}/{y}.png',
      'ftp://tiles.example.org/{z}/{x}/{y}.png',
      'https://tiles.example.org {z}/{x}/{y}.png',
      "https://tiles.example.org;script-src 'unsafe-inline'/{z}/{x}/{y}.png",
      // What a browser would fetch from elsewhere than the host as written.
      'http://010.0.0.1/{z}/{x}/{y}.png', // octal: 8.0.0.1
      'http://172.016.0.1/{z}/{x}/{y}.png', // 172.14.0.1
      'http://2130706433/{z}/{x}/{y}.png', // 127.0.0.1 as one number
      'http://127.0.0.1@example.com/{z}/{x}/{y}.png', // user info: the host is example.com
      'http://192.168.1.08/{z}/{x}/{y}.png',
      'http://.local/{z}/{x}/{y}.png',
      'http://localhost./{z}/{x}/{y}.png',
      'http://127.0.0.1:0/{z}/{x}/{y}.png',
    ];
    for (const url of refused) expect(tileImageSource(url), url).toBeNull();
    expect(mapSettings.safeParse({ tileUrl: 'https://tiles.example.org/{z}/{x}.png', tileAttribution: '', tileAttributionUrl: '' }).success).toBe(false);
  });

  it('takes an attribution link over http or https only', () => {
    const withLink = (tileAttributionUrl: string) =>
      mapSettings.safeParse({ tileUrl: 'https://t.example.org/{z}/{x}/{y}.png', tileAttribution: 'Tiles © Us', tileAttributionUrl }).success;
    expect(withLink('')).toBe(true);
    expect(withLink('https://example.org/copyright')).toBe(true);
    expect(withLink('javascript:alert(1)')).toBe(false);
    expect(withLink('https://example.org/"><script>')).toBe(false);
  });
});
