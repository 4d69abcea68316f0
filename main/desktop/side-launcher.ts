import { utilityProcess } from 'electron';
import type { SideLauncher } from '../core/jobs/side-process.js';

/**
 * Side processes in the desktop app (main/core/jobs/side-process.ts): Electron's utility
 * process, since the packaged app's runAsNode fuse is off (electron-builder.yml), so its
 * executable will not run a fork as Node. The child answers through `process.parentPort`
 * (side-task.ts). Not run by the tests here: no Electron binary can be downloaded on the test
 * machines; the same entry is tested under Node (test/desktop/packaging.test.ts).
 */
export const utilityLauncher: SideLauncher = (entry, { execArgv, env }) => {
  const child = utilityProcess.fork(entry, [], { execArgv, env, stdio: ['ignore', 'ignore', 'pipe'], serviceName: 'POI Membership Admin file reader' });
  // Messages wait for the process to be there.
  const spawned = new Promise<void>((resolve) => child.once('spawn', () => resolve()));
  let exited = false;
  child.once('exit', () => (exited = true));
  return {
    send: (message) => void spawned.then(() => child.postMessage(message)),
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) => child.on('exit', (code) => listener(code, null)),
    onStderr: (listener) => child.stderr?.on('data', (chunk: Buffer) => listener(chunk.toString())),
    kill: () => {
      if (!exited) child.kill();
    },
  };
};
