import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { describe, expect, it } from 'vitest';
import { buildDesktop } from '../../main/build/desktop.js';

/**
 * What `npm run dist` packages, checked without packaging (no Electron binary here): the
 * configuration as electron-builder itself reads and validates it, and the desktop bundle as
 * main/build/desktop.ts writes it.
 */
const root = join(import.meta.dirname, '..', '..');

/** validateConfiguration only logs through this; nothing here needs the log. */
const quiet = { isEnabled: false, data: new Map<string, unknown>(), add: () => undefined, save: async () => undefined };

describe('electron-builder.yml', () => {
  it('flips the fuses that close Electron\'s side doors', async () => {
    const config = await getConfig(root, null, null);
    await validateConfiguration(config, quiet);
    expect(config.electronFuses).toEqual(
      expect.objectContaining({
        runAsNode: false,
        enableNodeOptionsEnvironmentVariable: false,
        enableNodeCliInspectArguments: false,
        enableCookieEncryption: true,
        enableEmbeddedAsarIntegrityValidation: true,
        onlyLoadAppFromAsar: true,
        grantFileProtocolExtraPrivileges: false,
      }),
    );
  });

  it('packages no source maps', async () => {
    const config = await getConfig(root, null, null);
    const patterns = (config.files as Array<string | { filter?: string[] }>).flatMap((f) => (typeof f === 'string' ? [f] : (f.filter ?? [])));
    expect(patterns).toContain('!**/*.map');
  });
});

describe('the desktop bundle', () => {
  it('holds no source map and points to none', async () => {
    await buildDesktop();
    // Where the package takes it from (`files: dist/**`).
    const out = join(root, 'dist', 'desktop');
    const files = readdirSync(out, { recursive: true, encoding: 'utf8' });
    expect(files).toEqual(expect.arrayContaining(['main.mjs', 'preload.cjs']));
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    for (const f of files) expect(readFileSync(join(out, f), 'utf8'), f).not.toContain('sourceMappingURL');
  });
});
