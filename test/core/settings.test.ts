import { describe, expect, it } from 'vitest';
import { DEFAULT_TILE_ATTRIBUTION, DEFAULT_TILE_ATTRIBUTION_URL, DEFAULT_TILE_CACHE_MB, DEFAULT_TILE_URL } from '../../shared/contract.js';
import { CONSOLE } from '../../main/core/store/write-path.js';
import { testCore } from '../support/core.js';

describe('map settings', () => {
  it('reads a credit saved as HTML by an earlier version as its text and its first link, keeping the tile server', () => {
    const core = testCore();
    const store = (value: unknown): void => {
      core.writes.now(CONSOLE, () => core.db.prepare("INSERT INTO settings (key, value) VALUES ('map', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(JSON.stringify(value)));
    };
    store({ tileUrl: 'https://tiles.example.org/{z}/{x}/{y}.png', tileAttribution: '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors' });
    expect(core.settings.map()).toEqual({
      tileUrl: 'https://tiles.example.org/{z}/{x}/{y}.png',
      tileAttribution: '© OpenStreetMap contributors',
      tileAttributionUrl: 'https://www.openstreetmap.org/copyright',
      // Saved before the tile cache existed: it gets the default.
      tileCacheMb: DEFAULT_TILE_CACHE_MB,
    });
    store({ tileUrl: 'https://tiles.example.org/{z}/{x}/{y}.png', tileAttribution: 'Tiles <i>by</i> <a href="javascript:alert(1)">us</a> &amp; friends' });
    expect(core.settings.map()).toMatchObject({ tileAttribution: 'Tiles by us & friends', tileAttributionUrl: '' });
    // A long credit (earlier versions took 500 characters of HTML) is shortened, not lost with the tile server.
    store({ tileUrl: 'https://tiles.example.org/{z}/{x}/{y}.png', tileAttribution: `<a href="https://example.org/?a=1&amp;b=2">${'Long credit '.repeat(35)}</a>` });
    const long = core.settings.map();
    expect(long.tileUrl).toBe('https://tiles.example.org/{z}/{x}/{y}.png');
    expect(long.tileAttribution).toHaveLength(200);
    expect(long.tileAttributionUrl).toBe('https://example.org/?a=1&b=2');
    // What no longer passes (an http tile server on the internet) falls back to the defaults.
    store({ tileUrl: 'http://tiles.example.org/{z}/{x}/{y}.png', tileAttribution: 'x' });
    expect(core.settings.map()).toEqual({ tileUrl: DEFAULT_TILE_URL, tileAttribution: DEFAULT_TILE_ATTRIBUTION, tileAttributionUrl: DEFAULT_TILE_ATTRIBUTION_URL, tileCacheMb: DEFAULT_TILE_CACHE_MB });
    core.close();
  });
});
