import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import { ServiceError } from './errors.js';

/** `points` events within `seconds`, after which the key is refused until the window passes. */
export interface Limit {
  points: number;
  seconds: number;
}

export interface AbuseLimits {
  /** Failed logins for one username (or e-mail) of one client. */
  loginFailuresPerUser: Limit;
  /** Failed logins from one remote address, whatever the username. */
  loginFailuresPerAddress: Limit;
  /** Registrations through api_key (Implicit Flow) for one username or e-mail of one client. */
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

/** The names used on the command line (`--rate-limit login-user=5/900`). */
export const LIMIT_NAMES = {
  'login-user': 'loginFailuresPerUser',
  'login-address': 'loginFailuresPerAddress',
  'register-user': 'registrationsPerUser',
  'register-address': 'registrationsPerAddress',
} as const satisfies Record<string, keyof AbuseLimits>;

const limiter = (limit: Limit): RateLimiterMemory =>
  new RateLimiterMemory({ points: limit.points, duration: limit.seconds });

/**
 * Counts failures (and Implicit Flow registrations) per client+username and per remote
 * address, and refuses with 429 once either count is spent, before any password is checked.
 */
export class AbuseGuard {
  private readonly loginUser: RateLimiterMemory;
  private readonly loginAddress: RateLimiterMemory;
  private readonly registerUser: RateLimiterMemory;
  private readonly registerAddress: RateLimiterMemory;

  constructor(private readonly limits: AbuseLimits = DEFAULT_LIMITS) {
    this.loginUser = limiter(limits.loginFailuresPerUser);
    this.loginAddress = limiter(limits.loginFailuresPerAddress);
    this.registerUser = limiter(limits.registrationsPerUser);
    this.registerAddress = limiter(limits.registrationsPerAddress);
  }

  private static userKey(clientId: string, login: string): string {
    return `${clientId}\u0000${login.toLowerCase()}`;
  }

  private async refuseIfSpent(entries: Array<[RateLimiterMemory, Limit, string]>): Promise<void> {
    let waitMs = 0;
    for (const [rl, limit, k] of entries) {
      const res: RateLimiterRes | null = await rl.get(k);
      if (res && res.consumedPoints >= limit.points) waitMs = Math.max(waitMs, res.msBeforeNext);
    }
    if (waitMs > 0) {
      const error = new ServiceError('TOO_MANY_REQUESTS', 'too many attempts; try again later');
      error.retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
      throw error;
    }
  }

  async checkLogin(clientId: string, login: string, address: string): Promise<void> {
    await this.refuseIfSpent([
      [this.loginUser, this.limits.loginFailuresPerUser, AbuseGuard.userKey(clientId, login)],
      [this.loginAddress, this.limits.loginFailuresPerAddress, address],
    ]);
  }

  async loginFailed(clientId: string, login: string, address: string): Promise<void> {
    await this.loginUser.penalty(AbuseGuard.userKey(clientId, login), 1);
    await this.loginAddress.penalty(address, 1);
  }

  async loginSucceeded(clientId: string, login: string): Promise<void> {
    await this.loginUser.delete(AbuseGuard.userKey(clientId, login));
  }

  /** Counts one Implicit Flow registration attempt, refusing it if a count is already spent. */
  async registration(clientId: string, username: string, address: string): Promise<void> {
    const userKey = AbuseGuard.userKey(clientId, username);
    await this.refuseIfSpent([
      [this.registerUser, this.limits.registrationsPerUser, userKey],
      [this.registerAddress, this.limits.registrationsPerAddress, address],
    ]);
    await this.registerUser.penalty(userKey, 1);
    await this.registerAddress.penalty(address, 1);
  }
}
