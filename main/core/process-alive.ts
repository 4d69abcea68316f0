/**
 * Whether a process of this machine still runs: what a file or a row that names its writer's pid
 * (a restore's working copy, an upload waiting for its import, a running job) is swept by, so
 * that only what a dead process left goes, never what another live process (the CLI beside the
 * app) is still using.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of another user holds that pid, so it runs.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
