import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const parent = mkdtempSync(join(tmpdir(), 'poi-build-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe('building the admin UI', () => {
  it('two builds at once into one folder (two servers starting on a fresh clone) leave one complete build and nothing else', async () => {
    const ui = join(parent, 'renderer');
    const build = () => run(process.execPath, ['--import', 'tsx', 'main/build/renderer.ts'], { cwd: root, env: { ...process.env, POI_RENDERER_DIR: ui } });
    await Promise.all([build(), build()]);
    expect(readdirSync(parent)).toEqual(['renderer']);
    const html = readFileSync(join(ui, 'index.html'), 'utf8');
    const assets = [...html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    expect(assets.filter((a) => !existsSync(join(ui, a)))).toEqual([]);
  }, 120_000);
});
