import { Worker } from 'node:worker_threads';
import type { SideAsk, SideReply } from './side-process.js';
import { sideTasks } from './side-tasks.js';

/**
 * The entry of a side process (side-process.ts): one task, asked by message, answered by
 * message; the app kills the process once it has the answer, or when it is late.
 */

/** Electron's utility process speaks through `process.parentPort`; Node's fork through `process.send`. */
interface ParentPort {
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}
// Set by Electron in a utility process only; Node's types do not know it.
const parentPort = (process as NodeJS.Process & { parentPort?: ParentPort }).parentPort;

const answer = (reply: SideReply<unknown>): void => {
  if (parentPort) parentPort.postMessage(reply);
  else process.send?.(reply);
};

/**
 * Kills this process when the app that asked is gone (it is given to another parent) or the
 * task's deadline has passed: the app's own kill cannot come then, and a file built to keep its
 * reader busy must not keep a core busy after the app. A thread of its own, since the task may
 * hold the main thread in one SQLite call.
 */
function watchdog(deadline: number | null): void {
  const code = `
    const { workerData } = require('node:worker_threads');
    setInterval(() => {
      if (process.ppid !== workerData.ppid || (workerData.deadline !== null && Date.now() > workerData.deadline + 1000)) process.kill(process.pid, 'SIGKILL');
    }, 250);
  `;
  new Worker(code, { eval: true, workerData: { ppid: process.ppid, deadline } }).unref();
}

const run = (asked: SideAsk): void => {
  watchdog(asked.deadline);
  // The input is what the app sent for this task by name (side-process.ts runSideTask types it).
  const task = sideTasks[asked.name] as (input: never, nativeBinding: string | undefined) => Promise<unknown>;
  task(asked.input as never, asked.nativeBinding).then(
    (value) => answer({ ok: true, value }),
    (error: unknown) => answer({ ok: false, message: error instanceof Error ? error.message : String(error) }),
  );
};

if (parentPort) parentPort.on('message', (event) => run(event.data as SideAsk));
else process.once('message', (asked: SideAsk) => run(asked));
