import { ServiceError } from '../core/errors.js';
import type { SyncCore } from '../core/sync/sync-parts.js';
import { conflictView, refsIn, type ConflictView } from '../../shared/sync-view.js';
import type { SyncStatus } from '../../shared/contract.js';
import { call, centralConflicts, syncOnce, SyncError, type SyncReport, type SyncTarget } from './client.js';
import { loadTarget, saveTarget } from './credential.js';
import { resolveConflict, type Choice } from './resolve.js';

export interface AgentOptions {
  /** Sync on its own while the central answers: every `intervalMs`, and after a failure again after a growing wait. */
  auto?: boolean;
  intervalMs?: number;
  /** The first wait after a failure; it doubles up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

const failed = (error: unknown): ServiceError =>
  new ServiceError('SYNC_FAILED', error instanceof Error ? error.message : String(error), 'central');

/**
 * A data folder's sync, as the console shows and drives it: the central's address and device
 * credential (sync-target.json), one sync at a time (a second asked while one runs waits for it),
 * its progress, and, when asked, automatic syncs with backoff while the central is unreachable.
 */
export class SyncAgent {
  private running: Promise<SyncReport> | undefined;
  private progress: { step: string; done: number; total: number | null } | undefined;
  private lastError: string | null = null;
  private lastReport: SyncReport | null = null;
  private timer: NodeJS.Timeout | undefined;
  private nextAttempt: number | null = null;
  private backoff: number;
  private stopped = false;

  constructor(
    private readonly core: SyncCore,
    private readonly dir: string,
    private readonly options: AgentOptions = {},
  ) {
    this.backoff = options.minBackoffMs ?? 5_000;
  }

  status(): SyncStatus {
    const { sync } = this.core;
    const point = sync.state.read();
    const target = this.target();
    const client = point.clientId;
    return {
      configured: target !== undefined,
      url: target?.url ?? point.url,
      clientId: client,
      lastSync: point.lastSync ? new Date(point.lastSync).toISOString() : null,
      waiting: client ? sync.pending(client, point.pushed).size : 0,
      running: this.running !== undefined,
      progress: this.progress ?? null,
      lastError: this.lastError,
      lastReport: this.lastReport,
      nextAttempt: this.nextAttempt ? new Date(this.nextAttempt).toISOString() : null,
      insecureHttp: target?.insecureHttp === true && target.url.startsWith('http:'),
      setAside: client ? sync.setAside.list(client) : [],
      setAsideCount: client ? sync.setAside.size(client) : 0,
      refused: client ? sync.refused.list(client) : [],
      refusedCount: client ? sync.refused.size(client) : 0,
    };
  }

  /** Checks the address and credential with the central before keeping them: a typo is refused here, not at the next sync. */
  async configure(url: string, credential: string, insecureHttp = false): Promise<SyncStatus> {
    const target = { url, credential, ...(insecureHttp ? { insecureHttp } : {}) };
    try {
      await call(target, '/sync/hello');
    } catch (error) {
      throw failed(error);
    }
    saveTarget(this.dir, target);
    this.lastError = null;
    this.schedule(0);
    return this.status();
  }

  async syncNow(): Promise<SyncStatus> {
    await this.run().catch((error: unknown) => {
      throw failed(error);
    });
    return this.status();
  }

  /** The central's open conflicts, each from this desktop's point of view (its own side first, named so). */
  async conflicts(): Promise<ConflictView[]> {
    const conflicts = await centralConflicts(this.requireTarget()).catch((error: unknown) => {
      throw failed(error);
    });
    const { device, clientId } = this.core.sync.state.read();
    return conflicts.map((c) => conflictView(c, device, clientId ? this.core.sync.categoryNames(clientId, refsIn(c)) : {}));
  }

  async resolve(id: number, choice: Choice): Promise<SyncStatus> {
    const target = this.requireTarget();
    await this.exclusive(() => resolveConflict(this.core, target, id, choice).then(() => this.core.sync.state.read())).catch((error: unknown) => {
      throw failed(error);
    });
    return this.status();
  }

  start(): void {
    this.stopped = false;
    if (this.options.auto) this.schedule(0);
  }

  /**
   * No more automatic syncs, and the one under way (if any) finished: its host closes the
   * database next, under it otherwise. A sync's requests time out within a minute.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.nextAttempt = null;
    await this.running?.catch(() => undefined);
  }

  private target(): SyncTarget | undefined {
    try {
      return loadTarget(this.dir);
    } catch {
      return undefined;
    }
  }

  private requireTarget(): SyncTarget {
    const target = this.target();
    if (!target) throw new ServiceError('SYNC_FAILED', 'no central yet: give its address and this desktop’s device credential first', 'url');
    return target;
  }

  /** One sync or resolve at a time. */
  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    while (this.running) await this.running.catch(() => undefined);
    return work();
  }

  private run(): Promise<SyncReport> {
    if (this.running) return this.running;
    const target = this.requireTarget();
    const done = syncOnce(this.core, target, (step, n, total) => (this.progress = { step, done: n, total: total ?? null }))
      .then((report) => {
        this.lastReport = report;
        this.lastError = null;
        this.backoff = this.options.minBackoffMs ?? 5_000;
        return report;
      })
      .catch((error: unknown) => {
        this.lastError = error instanceof SyncError || error instanceof Error ? error.message : String(error);
        throw error;
      })
      .finally(() => {
        this.running = undefined;
        this.progress = undefined;
      });
    this.running = done;
    return done;
  }

  private schedule(delayMs: number): void {
    // A sync that ends after stop() must not arm the next one.
    if (!this.options.auto || this.stopped) return;
    clearTimeout(this.timer);
    this.nextAttempt = Date.now() + delayMs;
    this.timer = setTimeout(() => {
      this.nextAttempt = null;
      if (!this.target()) return this.schedule(this.options.intervalMs ?? 60_000);
      this.run().then(
        () => this.schedule(this.options.intervalMs ?? 60_000),
        () => {
          // Unreachable or refused: try again later, waiting longer each time.
          this.schedule(this.backoff);
          this.backoff = Math.min(this.backoff * 2, this.options.maxBackoffMs ?? 300_000);
        },
      );
    }, delayMs);
    this.timer.unref();
  }
}
