import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SideTaskName, SideTasks } from './side-tasks.js';

/** The heap a side process may use: a file built to exhaust memory ends it, not the app. */
const SIDE_PROCESS_HEAP_MB = 512;

/**
 * Why a side task did not give its answer: `refused`, the file's fault (the task refused it, or
 * reading it ran late or out of memory); `cancelled`; `failed`, the process could not run or died.
 */
export class SideTaskFailed extends Error {
  constructor(
    message: string,
    readonly why: 'refused' | 'cancelled' | 'failed',
  ) {
    super(message);
    this.name = 'SideTaskFailed';
  }
}

/** A side process as the app drives it, however it was started. */
export interface SideChild {
  send(message: SideAsk): void;
  onMessage(listener: (message: unknown) => void): void;
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  onStderr(listener: (chunk: string) => void): void;
  kill(): void;
}

/** How a host starts a side process on `entry`. */
export type SideLauncher = (entry: string, options: { execArgv: string[]; env: NodeJS.ProcessEnv }) => SideChild;

/**
 * Node's fork: the CLI, `serve`, browser mode. The packaged desktop cannot use it (Electron's
 * runAsNode fuse is off there, so its executable will not run as Node): it gives its own
 * launcher (main/desktop/side-launcher.ts, Electron's utility process).
 */
const forkLauncher: SideLauncher = (entry, { execArgv, env }) => {
  const child = fork(entry, [], { execArgv, env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' });
  return {
    send: (message) => child.send(message),
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) => {
      child.on('exit', listener);
      child.on('error', () => listener(null, 'error'));
    },
    onStderr: (listener) => child.stderr?.on('data', (chunk: Buffer) => listener(chunk.toString())),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
};

export interface SideRun {
  /** The limit on the task's time, if any; when it runs out the process is killed. */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** better-sqlite3's addon where it is not the default (Electron's build). */
  nativeBinding?: string | undefined;
  launcher?: SideLauncher | undefined;
}

/** What the side process says back: its answer, or its refusal in words. */
export type SideReply<T> = { ok: true; value: T } | { ok: false; message: string };

/** What the side process is asked: the task, its input, and its own deadline (its watchdog, side-task.ts). */
export interface SideAsk {
  name: SideTaskName;
  input: unknown;
  nativeBinding: string | undefined;
  deadline: number | null;
}

/**
 * The variables a side process gets: enough to run, nothing of the app's secrets (a sync
 * credential, NODE_OPTIONS): it reads strangers' files.
 */
const PASSED_ENV = ['PATH', 'HOME', 'USERPROFILE', 'SystemRoot', 'TEMP', 'TMP', 'TMPDIR', 'LANG'];
const sideEnv = (): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(PASSED_ENV.flatMap((key) => (process.env[key] === undefined ? [] : [[key, process.env[key]]]))),
  ELECTRON_RUN_AS_NODE: '1',
});

/**
 * The side process's entry, beside this file: `side-task.ts` run through tsx from the sources,
 * `side-task.mjs` in the desktop build (main/build/desktop.ts bundles it beside main.mjs).
 */
function entry(): { file: string; execArgv: string[] } {
  const fromSources = import.meta.url.endsWith('.ts');
  const file = fileURLToPath(new URL(fromSources ? './side-task.ts' : './side-task.mjs', import.meta.url));
  const loader = fromSources ? ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] : [];
  return { file, execArgv: [...loader, `--max-old-space-size=${SIDE_PROCESS_HEAP_MB}`] };
}

const isReply = (message: unknown): message is SideReply<unknown> => typeof message === 'object' && message !== null && 'ok' in message;

/**
 * Runs a task on an untrusted file (a map package, a backup) in a process of its own, so that
 * whatever the file does to its reader (a query that never ends, a native call that never
 * returns, memory exhausted) costs that process, never the app: it is killed when late or
 * cancelled, and kills itself when the app is gone (side-task.ts). A worker thread would not do:
 * terminating one cannot stop a SQLite call in progress, which keeps its core busy for good.
 */
export function runSideTask<N extends SideTaskName>(name: N, input: Parameters<SideTasks[N]>[0], run: SideRun): Promise<Awaited<ReturnType<SideTasks[N]>>> {
  type Out = Awaited<ReturnType<SideTasks[N]>>;
  const { file, execArgv } = entry();
  return new Promise<Out>((resolve, reject) => {
    if (run.signal?.aborted) {
      reject(new SideTaskFailed('cancelled', 'cancelled'));
      return;
    }
    const child = (run.launcher ?? forkLauncher)(file, { execArgv, env: sideEnv() });
    let settled = false;
    let stderr = '';
    child.onStderr((chunk) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      child.kill();
      outcome();
    };
    const late = (ms: number): void => finish(() => reject(new SideTaskFailed(`reading it took longer than ${Math.round(ms / 1000)} s (the file may be damaged, or built to keep a reader busy)`, 'refused')));
    const limit = run.timeoutMs;
    const timer = limit === undefined ? undefined : setTimeout(() => late(limit), limit);
    const onAbort = (): void => finish(() => reject(new SideTaskFailed('cancelled', 'cancelled')));
    run.signal?.addEventListener('abort', onAbort, { once: true });
    child.onMessage((reply) => {
      if (!isReply(reply)) return;
      // The task's answer is the type its task returns (side-tasks.ts), sent back as it was.
      finish(() => (reply.ok ? resolve(reply.value as Out) : reject(new SideTaskFailed(reply.message, 'refused'))));
    });
    child.onExit((code, signal) => {
      const outOfMemory = /heap out of memory|allocation failed/i.test(stderr);
      const why = outOfMemory ? `reading it needed more than ${SIDE_PROCESS_HEAP_MB} MB of memory` : `its reader stopped (${signal ?? `exit code ${code}`})`;
      finish(() => reject(new SideTaskFailed(why, outOfMemory ? 'refused' : 'failed')));
    });
    child.send({ name, input, nativeBinding: run.nativeBinding, deadline: limit === undefined ? null : Date.now() + limit } satisfies SideAsk);
  });
}
