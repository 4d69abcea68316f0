import type { Database, Statement } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import { SYSTEM, type WritePath } from '../store/write-path.js';

/** `points` attempts within `seconds`; the window starts at the first attempt. */
export interface Limit {
  points: number;
  seconds: number;
}

export interface AbuseLimits {
  /** Login attempts for one member (its username and e-mail alike) or one unknown login of one client. */
  loginFailuresPerUser: Limit;
  /** Login attempts from one remote address (an IPv6 address counts by its /64), whatever the username. */
  loginFailuresPerAddress: Limit;
  /** Registrations through api_key (Implicit Flow) for one username of one client. */
  registrationsPerUser: Limit;
  /** Registrations through api_key (Implicit Flow) from one remote address. */
  registrationsPerAddress: Limit;
}

export const DEFAULT_LIMITS: AbuseLimits = {
  loginFailuresPerUser: { points: 5, seconds: 15 * 60 },
  loginFailuresPerAddress: { points: 50, seconds: 15 * 60 },
  registrationsPerUser: { points: 10, seconds: 60 * 60 },
  registrationsPerAddress: { points: 30, seconds: 60 * 60 },
};

/** The names used on the command line (`--rate-limit login-user=5/900`) and stored with the counts. */
export const LIMIT_NAMES = {
  'login-user': 'loginFailuresPerUser',
  'login-address': 'loginFailuresPerAddress',
  'register-user': 'registrationsPerUser',
  'register-address': 'registrationsPerAddress',
} as const satisfies Record<string, keyof AbuseLimits>;

type Bucket = keyof typeof LIMIT_NAMES;

/**
 * The key of a remote address: an IPv4 address (IPv4-mapped IPv6 included) as itself, an IPv6
 * address by its /64, the smallest block a home or a cloud machine is usually given: counting
 * single IPv6 addresses would let one machine guess from 2^64 of them.
 */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  return `${ip.toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

/** Attempts taken from each bucket; given back on success (a login) so that only failures count. */
export interface Reservation {
  taken: Array<{ bucket: Bucket; key: Buffer; resetAt: number }>;
}

interface CountRow {
  count: number;
  reset_at: number;
}

const tooMany = (waitMs: number): ServiceError => {
  const error = new ServiceError('TOO_MANY_REQUESTS', 'too many attempts; try again later');
  error.retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  return error;
};

/**
 * Counts attempts per bucket and key in the database and refuses with 429 once a count is spent.
 * An attempt is reserved before the work it guards (the password check), atomically: however
 * many requests are in flight, at most `points` of them ever reach that work in a window. The
 * counts survive a restart and are shared by every process serving the same database file.
 */
export class AbuseGuard {
  private readonly read: Statement<[string, Buffer], CountRow>;
  private readonly start: Statement;
  private readonly increment: Statement;
  private readonly giveBackOne: Statement;
  private readonly sweep: Statement;

  constructor(
    db: Database,
    private readonly writes: WritePath,
    private readonly clock: Clock,
    private readonly limits: AbuseLimits = DEFAULT_LIMITS,
  ) {
    this.read = db.prepare('SELECT count, reset_at FROM attempt_counts WHERE bucket = ? AND key = ?');
    this.start = db.prepare('INSERT OR REPLACE INTO attempt_counts (bucket, key, count, reset_at) VALUES (?, ?, 1, ?)');
    this.increment = db.prepare('UPDATE attempt_counts SET count = count + 1 WHERE bucket = ? AND key = ?');
    this.giveBackOne = db.prepare('UPDATE attempt_counts SET count = max(0, count - 1) WHERE bucket = ? AND key = ? AND reset_at = ?');
    // Keys of finished windows are dropped a few at a time, so the table holds live windows only.
    this.sweep = db.prepare(
      'DELETE FROM attempt_counts WHERE (bucket, key) IN (SELECT bucket, key FROM attempt_counts WHERE reset_at <= ? LIMIT 100)',
    );
  }

  private static key(bucket: Bucket, ...parts: string[]): { bucket: Bucket; key: Buffer } {
    return { bucket, key: createHash('sha256').update(parts.join('\u0000')).digest() };
  }

  /**
   * Takes one attempt from every bucket, all or none, or throws 429 with the longest wait. It
   * runs in the shared write transaction and is answered once the count is on disk.
   */
  private reserve(wanted: ReadonlyArray<{ bucket: Bucket; key: Buffer }>): Promise<Reservation> {
    return this.writes.run(SYSTEM, () => {
      const now = this.clock.now();
      const live = wanted.map((w) => {
        const row = this.read.get(w.bucket, w.key);
        return row && row.reset_at > now ? row : undefined;
      });
      let waitMs = 0;
      live.forEach((row, i) => {
        if (row && row.count >= this.limits[LIMIT_NAMES[wanted[i]!.bucket]].points) waitMs = Math.max(waitMs, row.reset_at - now);
      });
      if (waitMs > 0) throw tooMany(waitMs);
      this.sweep.run(now);
      const taken = wanted.map((w, i) => {
        const row = live[i];
        if (row) {
          this.increment.run(w.bucket, w.key);
          return { ...w, resetAt: row.reset_at };
        }
        const resetAt = now + this.limits[LIMIT_NAMES[w.bucket]].seconds * 1000;
        this.start.run(w.bucket, w.key, resetAt);
        return { ...w, resetAt };
      });
      return { taken };
    });
  }

  /** Returns a reservation's attempts (its window still running): a success does not count. */
  async giveBack(reservation: Reservation): Promise<void> {
    await this.writes.run(SYSTEM, () => {
      for (const t of reservation.taken) this.giveBackOne.run(t.bucket, t.key, t.resetAt);
    });
  }

  /**
   * Before a password is checked. `memberId` is the member the login names, when it names one:
   * its username and its e-mail then share one count; an unknown login counts by its text.
   */
  reserveLogin(clientId: string, memberId: string | undefined, login: string, address: string): Promise<Reservation> {
    return this.reserve([
      memberId ? AbuseGuard.key('login-user', 'member', memberId) : AbuseGuard.key('login-user', 'login', clientId, foldLogin(login)),
      AbuseGuard.key('login-address', addressKey(address)),
    ]);
  }

  /** One Implicit Flow registration attempt, counted whatever its outcome. */
  async registration(clientId: string, username: string, address: string): Promise<void> {
    await this.reserve([AbuseGuard.key('register-user', clientId, foldLogin(username)), AbuseGuard.key('register-address', addressKey(address))]);
  }
}

/** Logins are matched case-insensitively (members.ts keys them lower-cased): count them alike. */
const foldLogin = (login: string): string => login.toLowerCase();
