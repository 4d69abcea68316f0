import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The service's CLI run as a separate process, as a user runs it, so a test can crash it for
 * real (SIGKILL) and start it again on the same data folder.
 *
 * It runs as one node process with tsx as a loader (`node --import tsx`), as `npm run cli` does,
 * so signals reach the server itself. It still gets a process group of its own and a crash kills
 * the whole group, so that no helper process could survive it holding the database.
 */

export const root = join(import.meta.dirname, '..', '..');
const node = process.execPath;
const run = promisify(execFile);

export interface NewClient {
  client_id: string;
  admin_token: string;
}

/** `client add --name NAME --data DIR`, spawned without npm so stdout is pure JSON. */
export async function addClient(dataDir: string, name: string): Promise<NewClient> {
  const { stdout } = await run(node, ['--import', 'tsx', 'main/cli.ts', 'client', 'add', '--name', name, '--data', dataDir], { cwd: root });
  const parsed = JSON.parse(stdout) as Record<string, unknown>;
  const { client_id, admin_token } = parsed;
  if (typeof client_id !== 'string' || typeof admin_token !== 'string') {
    throw new Error(`client add printed no client_id/admin_token: ${stdout}`);
  }
  return { client_id, admin_token };
}

export interface ChildServer {
  /** The pid of the server process, which leads the process group. */
  readonly pid: number;
  readonly port: number;
  /** `http://127.0.0.1:PORT` */
  readonly base: string;
  /** The last few kilobytes of stdout and stderr, for failure messages. */
  tail(): string;
  /** SIGKILL to every process of the group; resolves once all are gone and the port is closed. */
  crash(): Promise<void>;
  /** SIGTERM: the clean stop. Resolves with the exit code. */
  stop(): Promise<number | null>;
}

const live = new Set<number>();

/** Kills (SIGKILL) every child group still running: for afterAll and for an aborted run. */
export function killAllChildren(): void {
  for (const pid of live) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  live.clear();
}
process.once('exit', killAllChildren);

const LISTENING = /API listening on http:\/\/127\.0\.0\.1:(\d+)\/1\//;
const TAIL = 8192;

/** `serve --data DIR --port 0`; resolves when the listener has printed its port. */
export async function startChild(dataDir: string, timeoutMs = 20_000): Promise<ChildServer> {
  const child: ChildProcess = spawn(node, ['--import', 'tsx', 'main/cli.ts', 'serve', '--data', dataDir, '--port', '0'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not spawn the server');
  live.add(pid);
  let out = '';
  const keep = (chunk: Buffer): void => {
    // Every request is logged: keep reading so the pipe never fills, but keep only the tail.
    out = (out + chunk.toString()).slice(-TAIL);
  };
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    let seen: string | undefined = '';
    const timer = setTimeout(() => reject(new Error(`no "listening" line within ${timeoutMs} ms: ${out}`)), timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      keep(chunk);
      if (seen === undefined) return;
      seen += chunk.toString();
      const m = LISTENING.exec(seen);
      if (m) {
        seen = undefined;
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening: ${out}`));
    });
  }).catch(async (error: unknown) => {
    await killGroup(pid);
    throw error;
  });

  return {
    pid,
    port,
    base: `http://127.0.0.1:${port}`,
    tail: () => out,
    crash: async () => {
      await killGroup(pid);
      await exited;
      // Threads of a killed process may still be tearing down (holding its sockets and files)
      // after the process itself reads as a zombie: wait for the listener to go too.
      const deadline = Date.now() + 5_000;
      while (await portOpen(port)) {
        if (Date.now() > deadline) throw new Error(`port ${port} still accepts connections 5 s after SIGKILL`);
        await sleep(10);
      }
    },
    stop: async () => {
      child.kill('SIGTERM');
      const code = await within(exited, 10_000, 'timeout' as const);
      if (code === 'timeout') {
        await killGroup(pid);
        throw new Error(`the server did not stop within 10 s of SIGTERM: ${out}`);
      }
      await waitGroupGone(pid);
      return code;
    },
  };
}

async function killGroup(pid: number): Promise<void> {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
  await waitGroupGone(pid);
}

/** Whether a thread of /proc/PID is still running (not a zombie, not dead). */
function threadsRunning(pid: string): boolean {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return false; // exited meanwhile
  }
  return tids.some((tid) => {
    try {
      const state = statFields(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'))[0];
      return state !== 'Z' && state !== 'X';
    } catch {
      return false;
    }
  });
}

/** "pid (comm) state ppid pgrp ...": the fields after comm, which may hold spaces and parentheses. */
const statFields = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

/**
 * Whether a process of the group is still running. On Linux, zombies do not count: the tsx
 * child is reparented to init when tsx dies, and some inits (containers, VMs) reap late. A
 * process counts as running while any of its threads does: the main thread of a killed
 * process turns zombie before its other threads have finished exiting.
 */
function groupAlive(pgid: number): boolean {
  if (existsSync('/proc/self/stat')) {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue; // exited meanwhile
      }
      if (Number(statFields(stat)[2]) === pgid && threadsRunning(entry)) return true;
    }
    return false;
  }
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Until no process of the group is left running. */
async function waitGroupGone(pid: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`process group ${pid} still alive after ${timeoutMs} ms`);
    await sleep(10);
  }
  live.delete(pid);
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The promise's value, or `fallback` if it takes longer than `ms` (the timer is cleared either way). */
export async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
