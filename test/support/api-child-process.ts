import { spawn, type ChildProcess } from 'node:child_process';
import { root } from './child-server.js';

export interface ApiChild {
  port: number;
  admin: string;
  poi: number;
  process: ChildProcess;
}

/**
 * Starts test/support/api-child.ts (a listener in its own process), optionally under `prlimit`
 * arguments such as `--nofile=600:600`; resolves once it listens.
 */
export function startApiChild(options: object, extra: { dense?: number; prlimit?: string[] } = {}): Promise<ApiChild> {
  const node = [process.execPath, '--import', 'tsx', 'test/support/api-child.ts', JSON.stringify(options), String(extra.dense ?? 0)];
  const proc = extra.prlimit ? spawn('prlimit', [...extra.prlimit, ...node], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] }) : spawn(node[0]!, node.slice(1), { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ ...(JSON.parse(line) as Omit<ApiChild, 'process'>), process: proc });
    });
    proc.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening: ${out}`)));
  });
}
