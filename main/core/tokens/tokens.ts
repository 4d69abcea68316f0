import { createHash, randomUUID } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import type { CommitStamp } from '../store/commit-stamp.js';
import { CONSOLE, type Actor, type WritePath } from '../store/write-path.js';

export type Role = 'admin' | 'member';

/** Who a valid token speaks for. */
export interface Principal {
  clientId: string;
  role: Role;
  memberId: string | null;
  tokenHash: Buffer;
  expiresAt: number | null;
}

/**
 * Who a write is made for. Checked again inside the write transaction: a token revoked, or its
 * member deleted, while the request was in flight refuses the write as if that had come first.
 */
export interface Author {
  memberId: string | null;
  /** As the change log records it. */
  actor: Actor;
  assertStillValid(): void;
}

/** The actor of writes made with a token: its member, or the client's administrator. */
export const actorOf = (principal: Pick<Principal, 'role' | 'memberId'>): Actor =>
  principal.role === 'member' && principal.memberId ? { kind: 'member', id: principal.memberId } : { kind: 'administrator' };

/** A token as a request carries it, or the principal a transport has already resolved it to. */
export type Credential = string | undefined | Principal;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isGuid = (text: string): boolean => GUID.test(text);

/** Tokens are GUIDs (as on the old platform) from the CSPRNG; only their SHA-256 is stored. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token.toLowerCase()).digest();
}

const TOKEN_CACHE_SIZE = 10_000;

const refusedToken = (): ServiceError =>
  new ServiceError('INVALID_TOKEN', 'the access_token is unknown or was revoked', 'access_token');

interface TokenRow {
  client_id: string;
  member_id: string | null;
  role: Role;
  expires_at: number | null;
  revoked_at: number | null;
}

interface CachedToken {
  row: TokenRow;
  tokenHash: Buffer;
}

export class Tokens {
  private readonly insert: Statement;
  private readonly find: Statement<[Buffer], TokenRow>;
  private readonly revokeOne: Statement;
  private readonly revokeOfMember: Statement;
  private readonly revokeOfMemberExcept: Statement;
  private readonly revokeAdminOf: Statement;
  private readonly liveStmt: Statement<[Buffer], Pick<TokenRow, 'revoked_at'>>;
  private readonly cache = new Map<string, CachedToken>();
  private seenStamp = '';
  private seenCounts = '';

  constructor(
    private readonly db: Database,
    private readonly writes: WritePath,
    private readonly clock: Clock,
    private readonly stamp: Pick<CommitStamp, 'read' | 'counted'>,
  ) {
    this.insert = db.prepare(
      'INSERT INTO tokens (hash, client_id, member_id, role, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.find = db.prepare('SELECT client_id, member_id, role, expires_at, revoked_at FROM tokens WHERE hash = ?');
    this.revokeOne = db.prepare('UPDATE tokens SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL');
    this.revokeOfMember = db.prepare('UPDATE tokens SET revoked_at = ? WHERE member_id = ? AND revoked_at IS NULL');
    this.revokeOfMemberExcept = db.prepare(
      'UPDATE tokens SET revoked_at = ? WHERE member_id = ? AND hash <> ? AND revoked_at IS NULL',
    );
    this.liveStmt = db.prepare('SELECT revoked_at FROM tokens WHERE hash = ?');
    this.revokeAdminOf = db.prepare(
      "UPDATE tokens SET revoked_at = ? WHERE client_id = ? AND role = 'admin' AND revoked_at IS NULL",
    );
  }

  /** Returns the token in clear: the only moment it exists outside the caller's hands. */
  issue(clientId: string, role: Role, memberId: string | null, expiresAt: number | null): string {
    const token = randomUUID();
    this.insert.run(hashToken(token), clientId, memberId, role, this.clock.now(), expiresAt);
    return token;
  }

  /** The principal of a token, or the reason it is refused. */
  resolve(token: string | undefined): Principal {
    if (token === undefined || token === '') {
      throw new ServiceError('TOKEN_REQUIRED', 'an access_token is required', 'access_token');
    }
    const found = this.lookup(token);
    if (!found) throw refusedToken();
    const { row, tokenHash } = found;
    if (row.revoked_at !== null) throw refusedToken();
    if (row.expires_at !== null && row.expires_at <= this.clock.now()) {
      throw new ServiceError('TOKEN_EXPIRED', 'the access_token has expired', 'access_token');
    }
    return { clientId: row.client_id, role: row.role, memberId: row.member_id, tokenHash, expiresAt: row.expires_at };
  }

  /**
   * Token rows with their hash, cached by the token as the request gives it: every authenticated
   * request needs one, and a hit then costs no SHA-256 (hashing was the dearest part of a cached
   * lookup). The cache lives in this process only; the database still holds hashes only. Rows
   * change only by revocation or deletion: revocations in this process drop the cache, and so does
   * any commit, by this process or another (the CLI rotating a token), told by the commit stamp
   * or its statement (store/commit-stamp.ts): after a group commit, the next lookup of each token
   * costs one SHA-256 and one SELECT.
   */
  private dropIfCommitted(): void {
    // In a read's transaction, a statement rides on the read lock the transaction takes anyway;
    // outside one (a write's token check) the commit stamp's pread costs less than taking that
    // lock. Each tells of any commit since its own last reading, this process's too (a sync that
    // deletes a member deletes its tokens without a revocation), so either catches one.
    if (this.db.inTransaction) {
      const counts = this.stamp.counted();
      if (counts === this.seenCounts) return;
      this.seenCounts = counts;
    } else {
      const stamp = this.stamp.read();
      if (stamp === this.seenStamp) return;
      this.seenStamp = stamp;
    }
    this.cache.clear();
  }

  private lookup(token: string): CachedToken | undefined {
    this.dropIfCommitted();
    const cached = this.cache.get(token);
    if (cached) return cached;
    if (!isGuid(token)) return undefined;
    const tokenHash = hashToken(token);
    const row = this.find.get(tokenHash);
    if (!row) return undefined;
    if (this.cache.size >= TOKEN_CACHE_SIZE) this.cache.clear();
    const entry = { row, tokenHash };
    this.cache.set(token, entry);
    return entry;
  }

  /** The author of a write made with this principal's token (uncached: read inside the write). */
  author(principal: Principal): Author {
    return {
      memberId: principal.memberId,
      actor: actorOf(principal),
      assertStillValid: () => {
        const row = this.liveStmt.get(principal.tokenHash);
        if (!row || row.revoked_at !== null) throw refusedToken();
      },
    };
  }

  /** The principal of a credential, resolving it only if it is still a token. */
  principal(credential: Credential): Principal {
    return typeof credential === 'object' ? credential : this.resolve(credential);
  }

  /** Logout. */
  revoke(tokenHash: Buffer, actor: Actor): void {
    this.cache.clear();
    this.writes.now(actor, () => this.revokeOne.run(this.clock.now(), tokenHash));
  }

  /** Revokes a token given in clear, expired or not; false when no live token had that value. */
  revokeToken(token: string, actor: Actor = CONSOLE): boolean {
    if (!isGuid(token)) return false;
    this.cache.clear();
    return this.writes.now(actor, () => this.revokeOne.run(this.clock.now(), hashToken(token)).changes > 0);
  }

  /** Every token of a member, but the one it is using now when `keep` is given. */
  revokeMember(memberId: string, keep?: Buffer): void {
    this.cache.clear();
    if (keep) this.revokeOfMemberExcept.run(this.clock.now(), memberId, keep);
    else this.revokeOfMember.run(this.clock.now(), memberId);
  }

  revokeAdmin(clientId: string): void {
    this.cache.clear();
    this.revokeAdminOf.run(this.clock.now(), clientId);
  }
}
