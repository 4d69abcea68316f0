import { build } from 'esbuild';
import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { describe, expect, it } from 'vitest';
import { buildDesktop } from '../../main/build/desktop.js';
import { sampleMap } from '../../main/build/sample-map.js';

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

/**
 * The packages a built module loads: at once (`import` statements, followed through the bundle's
 * own files), or only when some `import()` runs. Read from the built files themselves, by letting
 * esbuild walk them again.
 */
async function packagesLoadedBy(entry: string): Promise<{ atStart: string[]; all: string[] }> {
  const { metafile } = await build({ entryPoints: [entry], bundle: true, write: false, metafile: true, format: 'esm', platform: 'node', packages: 'external', logLevel: 'silent' });
  const inputs = metafile.inputs;
  const walk = (follow: (kind: string) => boolean): string[] => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const i of inputs[file]?.imports ?? []) {
        if (!follow(i.kind)) continue;
        if (i.external) packages.add(i.path);
        else visit(i.path);
      }
    };
    visit(relative(process.cwd(), entry));
    return [...packages].sort();
  };
  return { atStart: walk((kind) => kind === 'import-statement'), all: walk(() => true) };
}

describe('the desktop bundle and its side process', () => {
  it('ships side-task.mjs, which reads a map package as the app asks it, without tsx', async () => {
    await buildDesktop();
    const entry = join(root, 'dist', 'desktop', 'side-task.mjs');
    const child = fork(entry, [], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced' });
    try {
      const reply = await new Promise<unknown>((resolve, reject) => {
        child.once('message', resolve);
        child.once('exit', (code) => reject(new Error(`side-task.mjs exited with ${code}`)));
        child.send({ name: 'describe-package', input: { file: sampleMap(), container: 'mbtiles' }, nativeBinding: undefined });
      });
      expect(reply).toMatchObject({ ok: true, value: { container: 'mbtiles', format: 'pbf' } });
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('the desktop bundle and the HTTP framework', () => {
  const httpFramework = (p: string): boolean => /^(@fastify\/|(fastify|busboy)(\/|$))/.test(p);

  it('starts Electron without Fastify: main.mjs loads no fastify nor @fastify/ package; the API listener is loaded when it is turned on', async () => {
    await buildDesktop();
    const loaded = await packagesLoadedBy(join(root, 'dist', 'desktop', 'main.mjs'));
    expect(loaded.atStart).toContain('electron');
    expect(loaded.atStart.filter(httpFramework)).toEqual([]);
    // The listener is still shipped: only later.
    expect(loaded.all).toContain('fastify');
  });
});
