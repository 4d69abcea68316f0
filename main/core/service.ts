import { AbuseGuard, DEFAULT_LIMITS, type AbuseLimits } from './abuse.js';
import { MembershipApi } from './api/membership.js';
import { Clients } from './clients.js';
import { systemClock, type Clock } from './clock.js';
import { Members } from './members.js';
import { argon2Hasher, type PasswordHasher } from './passwords.js';
import { openDatabase, type Database } from './store/database.js';
import { Tokens } from './tokens.js';

export interface CoreOptions {
  /** A database file path, or ':memory:'. */
  file: string;
  clock?: Clock;
  limits?: Partial<AbuseLimits>;
  passwords?: PasswordHasher;
  nativeBinding?: string;
}

/** The whole service core over one SQLite database. Transports (HTTP, IPC, CLI) only call into it. */
export interface Core {
  db: Database;
  clock: Clock;
  clients: Clients;
  members: Members;
  tokens: Tokens;
  membership: MembershipApi;
  close(): void;
}

export function createCore(options: CoreOptions): Core {
  const clock = options.clock ?? systemClock;
  const db = openDatabase(options.file, {
    now: () => clock.now(),
    ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
  });
  const tokens = new Tokens(db, clock);
  const clients = new Clients(db, clock, tokens);
  const members = new Members(db, clock, tokens, options.passwords ?? argon2Hasher());
  const abuse = new AbuseGuard({ ...DEFAULT_LIMITS, ...options.limits });
  const membership = new MembershipApi(clients, members, tokens, abuse);
  return {
    db,
    clock,
    clients,
    members,
    tokens,
    membership,
    close: () => db.close(),
  };
}
