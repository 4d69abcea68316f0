import type { JobState } from '../../shared/jobs.js';

/**
 * What the core has to tell its host's log: it never writes to a stream itself (a desktop has no
 * terminal, a server's log is JSON lines): it emits these, and each host's log subscribes
 * (main/app/host-log.ts). An event nobody listens to is dropped.
 */
export type CoreEvent =
  | { kind: 'warm-up-failed'; error: unknown }
  | { kind: 'daily-backup-failed'; error: unknown }
  | { kind: 'job-end-not-kept'; jobId: string; state: JobState; error: unknown };

export type CoreEventListener = (event: CoreEvent) => void;

export class CoreEvents {
  private readonly listeners = new Set<CoreEventListener>();

  /** Listens from now on; the returned function stops listening. */
  on(listener: CoreEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: CoreEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
