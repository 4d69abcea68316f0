import { spawn, type ChildProcess } from 'node:child_process';
import { root } from './child-server.js';

/** A request as the child's listener answered it: when (Date.now()), and how long after it read it (ms). */
export interface Answered {
  path: string;
  end: number;
  ms: number;
}

export interface ApiChild {
  port: number;
  admin: string;
  poi: number;
  process: ChildProcess;
  /** Every request answered so far, in the order the server answered them. */
  answered(): Answered[];
}

/**
 * Starts test/support/api-child.ts (a listener in its own process), optionally under `prlimit`
 * arguments such as `--nofile=600:600`; resolves once it listens.
 */
export function startApiChild(options: object, extra: { dense?: number; prlimit?: string[] } = {}): Promise<ApiChild> {
  const node = [process.execPath, '--import', 'tsx', 'test/support/api-child.ts', JSON.stringify(options), String(extra.dense ?? 0)];
  const proc = extra.prlimit ? spawn('prlimit', [...extra.prlimit, ...node], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] }) : spawn(node[0]!, node.slice(1), { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const answered: Answered[] = [];
  return new Promise((resolve, reject) => {
    let out = '';
    let started = false;
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const lines = out.split('\n');
      out = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('ANSWERED ')) answered.push(JSON.parse(line.slice(9)) as Answered);
        else if (!started && line.startsWith('{')) {
          started = true;
          resolve({ ...(JSON.parse(line) as Omit<ApiChild, 'process' | 'answered'>), process: proc, answered: () => [...answered] });
        }
      }
    });
    proc.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening: ${out}`)));
  });
}
