import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository root; children run from here so that `main/cli.ts` resolves. */
export const ROOT = join(import.meta.dirname, '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

/** A server running in a process of its own, so a load generator never shares its event loop. */
export interface Child {
  port: number;
  /** The process that runs the server code: tsx starts node in a child process of its own. */
  pid: number;
  logFile: string;
  stop(): Promise<void>;
}

export interface NewClient {
  client_id: string;
  admin_token: string;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/** `tsx main/cli.ts client add --name NAME --data DIR`: the administrator token of a new client. */
export async function addClient(dataDir: string, name = 'bench'): Promise<NewClient> {
  const child = spawn(TSX, ['main/cli.ts', 'client', 'add', '--name', name, '--data', dataDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const code = await exited(child);
  if (code !== 0) throw new Error(`client add exited with ${code}: ${out}`);
  const parsed = JSON.parse(out) as Partial<NewClient>;
  if (typeof parsed.client_id !== 'string' || typeof parsed.admin_token !== 'string') throw new Error(`client add printed ${out}`);
  return { client_id: parsed.client_id, admin_token: parsed.admin_token };
}

/** Pids of the children of `pid` (from /proc; empty when there are none). */
function childrenOf(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`;
  if (existsSync(file)) {
    return readFileSync(file, 'utf8')
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  }
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/** The deepest descendant of `pid` (the node process tsx starts), else `pid` itself. */
function leafOf(pid: number): number {
  let current = pid;
  for (let depth = 0; depth < 5; depth++) {
    const [next] = childrenOf(current);
    if (next === undefined) return current;
    current = next;
  }
  return current;
}

export interface Memory {
  rssMiB: number;
  peakRssMiB: number;
}

/** VmRSS and VmHWM of a process, from /proc/PID/status. */
export function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakRssMiB: kib('VmHWM') / 1024 };
}

/**
 * Starts `tsx ARGS` with its output going to `logFile` (as `serve > log` would), and waits until
 * the log shows `ready` (whose first group is the port), for at most 60 s.
 */
async function startChild(args: string[], logFile: string, ready: RegExp, nodeArgs?: string[], cwd = ROOT): Promise<Child> {
  const fd = openSync(logFile, 'a');
  const [command, argv] = nodeArgs ? [process.execPath, [...nodeArgs, '--import', 'tsx', ...args]] : [TSX, args];
  const child = spawn(command, argv, { cwd, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const gone = exited(child);
  let ended = false;
  void gone.then(() => (ended = true));
  const deadline = Date.now() + 60_000;
  let port = 0;
  while (Date.now() < deadline && !ended) {
    const match = ready.exec(readFileSync(logFile, 'utf8'));
    if (match) {
      port = Number(match[1]);
      break;
    }
    await sleep(50);
  }
  const tail = (): string => readFileSync(logFile, 'utf8').slice(-2000);
  if (!port) {
    if (!ended) child.kill('SIGKILL');
    throw new Error(`${args.join(' ')} did not start:\n${tail()}`);
  }
  const rootPid = child.pid ?? 0;
  const pid = leafOf(rootPid);
  return {
    port,
    pid,
    logFile,
    stop: async () => {
      if (ended) return;
      child.kill('SIGTERM');
      const timeout = sleep(15_000).then(() => 'timeout' as const);
      if ((await Promise.race([gone, timeout])) === 'timeout') {
        for (const p of new Set([pid, rootPid])) {
          try {
            process.kill(p, 'SIGKILL');
          } catch {
            // Already gone.
          }
        }
        await gone;
      }
    },
  };
}

/**
 * The real CLI: `tsx main/cli.ts serve --data DIR --port 0 [serveArgs]`, logging one line per request. With
 * `nodeArgs` (e.g. --cpu-prof, which NODE_OPTIONS refuses) it runs `node ARGS --import tsx ...`.
 * `tree` is the checkout whose CLI runs (another commit's worktree, test/bench/old-main.ts).
 */
export function startService(dataDir: string, logFile: string, nodeArgs?: string[], serveArgs: string[] = [], tree = ROOT): Promise<Child> {
  return startChild(
    ['main/cli.ts', 'serve', '--data', dataDir, '--port', '0', ...serveArgs],
    logFile,
    /API listening on http:\/\/[^\s]+:(\d+)\/1\//,
    nodeArgs,
    tree,
  );
}

/** The baseline: a bare node:http server answering a fixed JSON body of about `bytes` bytes. */
export function startBare(logFile: string, bytes: number): Promise<Child> {
  return startChild(['test/bench/bare-server.ts', String(bytes)], logFile, /bare listening on (\d+)/);
}

/** The minimal reference: get.json and add.json done plainly over the service's database file. */
export function startReference(databaseFile: string, logFile: string): Promise<Child> {
  return startChild(['test/bench/reference-server.ts', databaseFile], logFile, /reference listening on (\d+)/);
}
