import { newUuid } from '../store/new-uuid.js';
import type { Database, Statement } from 'better-sqlite3';
import type { Gender, ValidPage, ValidRegister, ValidUpdateMember } from '../../../shared/schemas/members.js';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import type { PasswordHasher } from './passwords.js';
import { CONSOLE, type Actor, type WritePath } from '../store/write-path.js';
import type { Author, Tokens } from '../tokens/tokens.js';

export interface MemberRow {
  id: string;
  client_id: string;
  username: string;
  email: string;
  pwd_hash: string;
  gender: Gender;
  birthday: string | null;
  email_verified: 0 | 1;
  registered_at: number;
}

/** A token issued to a member, with its expiry (null: permanent). */
export interface Session {
  member: MemberRow;
  token: string;
  expiresAt: number | null;
}

const COLUMNS = 'id, client_id, username, email, pwd_hash, gender, birthday, email_verified, registered_at';

/** Usernames and e-mails are unique per client, compared case-insensitively. */
export const memberKey = (s: string): string => s.toLowerCase();
const key = memberKey;

const wrongCredentials = (): ServiceError => new ServiceError('INVALID_CREDENTIALS', 'unknown member or wrong password');

const alreadyExists = (parameter: 'username' | 'email'): ServiceError =>
  new ServiceError('ALREADY_EXISTS', `a member with this ${parameter} already exists`, parameter);

function isUniqueViolation(error: unknown): error is { code: string; message: string } {
  return (
    typeof error === 'object' && error !== null && 'code' in error && error.code === 'SQLITE_CONSTRAINT_UNIQUE'
  );
}

/**
 * The members of each client application, without any transport: the rules of
 * docs/api-spec.md#register-a-member and docs/api-spec.md#log-in.
 */
export class Members {
  private readonly insert: Statement;
  private readonly byId: Statement<[string, string], MemberRow>;
  private readonly byUsername: Statement<[string, string], MemberRow>;
  private readonly byEmail: Statement<[string, string], MemberRow>;
  private readonly page: Statement<[string, number, number], MemberRow>;
  private readonly del: Statement;
  private readonly upd: Statement;
  private readonly currentHash: Statement<[string], string>;

  constructor(
    db: Database,
    private readonly writes: WritePath,
    private readonly clock: Clock,
    private readonly tokens: Tokens,
    private readonly passwords: PasswordHasher,
  ) {
    this.insert = db.prepare(
      `INSERT INTO members (id, client_id, username, username_key, email, email_key, pwd_hash, gender, birthday, registered_at, updated_at)
       VALUES (@id, @client_id, @username, @username_key, @email, @email_key, @pwd_hash, @gender, @birthday, @registered_at, @registered_at)`,
    );
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM members WHERE client_id = ? AND id = ?`);
    this.byUsername = db.prepare(`SELECT ${COLUMNS} FROM members WHERE client_id = ? AND username_key = ?`);
    this.byEmail = db.prepare(`SELECT ${COLUMNS} FROM members WHERE client_id = ? AND email_key = ?`);
    this.page = db.prepare(
      `SELECT ${COLUMNS} FROM members WHERE client_id = ? ORDER BY registered_at, rowid LIMIT ? OFFSET ?`,
    );
    this.del = db.prepare('DELETE FROM members WHERE client_id = ? AND id = ?');
    // Keyed on the password hash that was checked too: a password changed by a concurrent request
    // while this one was hashing makes this one fail instead of silently overwriting it.
    this.upd = db.prepare('UPDATE members SET pwd_hash = ?, gender = ?, birthday = ?, updated_at = ? WHERE client_id = ? AND id = ? AND pwd_hash = ?');
    this.currentHash = db.prepare<[string], string>('SELECT pwd_hash FROM members WHERE id = ?').pluck();
  }

  private expiry(expiresIn: number | undefined): number | null {
    return expiresIn === undefined ? null : this.clock.now() + Math.round(expiresIn * 1000);
  }

  /** Refuses a taken username or e-mail before paying for a hash. */
  private assertFree(clientId: string, username: string, email: string): void {
    if (this.byUsername.get(clientId, key(username))) throw alreadyExists('username');
    if (this.byEmail.get(clientId, key(email))) throw alreadyExists('email');
  }

  /**
   * `actor` is who registers: the console's operator, the client's administrator, or (`'self'`,
   * registration through the api_key) the new member.
   */
  async register(clientId: string, input: ValidRegister, actor: Actor | 'self' = CONSOLE): Promise<Session> {
    this.assertFree(clientId, input.username, input.email);
    const pwdHash = await this.passwords.hash(input.pwd);
    const member: MemberRow = {
      id: newUuid(),
      client_id: clientId,
      username: input.username,
      email: input.email,
      pwd_hash: pwdHash,
      gender: input.gender ?? 'UNDEFINED',
      birthday: input.birthday ?? null,
      email_verified: 0,
      registered_at: this.clock.now(),
    };
    const expiresAt = this.expiry(input.expiresin);
    try {
      const token = await this.writes.run(actor === 'self' ? { kind: 'member', id: member.id } : actor, () => {
        // Another registration may have taken the name while we were hashing.
        this.assertFree(clientId, input.username, input.email);
        this.insert.run({ ...member, username_key: key(member.username), email_key: key(member.email) });
        return this.tokens.issue(clientId, 'member', member.id, expiresAt);
      });
      return { member, token, expiresAt };
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyExists(error.message.includes('email') ? 'email' : 'username');
      throw error;
    }
  }

  /** The member a login names: its e-mail when it holds an @, else its username. */
  findLogin(clientId: string, login: string): MemberRow | undefined {
    return login.includes('@') ? this.byEmail.get(clientId, key(login)) : this.byUsername.get(clientId, key(login));
  }

  /**
   * Checks a password against the member a login named. No member costs one argon2
   * verification, like a wrong password, and both get the same error.
   */
  async checkPassword(member: MemberRow | undefined, pwd: string): Promise<MemberRow> {
    if (!member) {
      await this.passwords.burn(pwd);
    } else if (await this.passwords.verify(member.pwd_hash, pwd)) {
      return member;
    }
    throw wrongCredentials();
  }

  async authenticate(clientId: string, login: string, pwd: string): Promise<MemberRow> {
    return this.checkPassword(this.findLogin(clientId, login), pwd);
  }

  /**
   * Issues a token to a member whose password was just checked, only if that password is still
   * the member's: a password change or a deletion that landed while it was being checked refuses
   * the login, as if it had landed first.
   */
  startSession(checked: MemberRow, expiresIn: number | undefined, actor: Actor = { kind: 'member', id: checked.id }): Promise<Session> {
    const expiresAt = this.expiry(expiresIn);
    return this.writes.run(actor, () => {
      if (this.currentHash.get(checked.id) !== checked.pwd_hash) throw wrongCredentials();
      return { member: checked, token: this.tokens.issue(checked.client_id, 'member', checked.id, expiresAt), expiresAt };
    });
  }

  find(clientId: string, memberId: string): MemberRow | undefined {
    return this.byId.get(clientId, memberId.toLowerCase());
  }

  require(clientId: string, memberId: string): MemberRow {
    const member = this.find(clientId, memberId);
    if (!member) throw new ServiceError('NOT_FOUND', 'no such member in this client application');
    return member;
  }

  list(clientId: string, { count, page }: ValidPage): MemberRow[] {
    return this.page.all(clientId, count, page * count);
  }

  /**
   * Changes pwd (after checking oldpwd), gender or birthday. A new password revokes every
   * other token of the member: whoever knew the old one is logged out.
   */
  /**
   * `author` (absent for the console's operator) is checked again inside the write: a token
   * revoked while the passwords were being hashed refuses the change.
   */
  async update(clientId: string, memberId: string, input: ValidUpdateMember, author?: Author & { tokenHash: Buffer }): Promise<MemberRow> {
    const member = this.require(clientId, memberId);
    let pwdHash = member.pwd_hash;
    if (input.pwd !== undefined) {
      if (!(await this.passwords.verify(member.pwd_hash, input.oldpwd ?? ''))) {
        throw new ServiceError('INVALID_CREDENTIALS', 'oldpwd is not the current password', 'oldpwd');
      }
      pwdHash = await this.passwords.hash(input.pwd);
    }
    const next: MemberRow = {
      ...member,
      pwd_hash: pwdHash,
      gender: input.gender === undefined ? member.gender : (input.gender ?? 'UNDEFINED'),
      birthday: input.birthday === undefined ? member.birthday : input.birthday,
    };
    this.writes.now(author?.actor ?? CONSOLE, () => {
      author?.assertStillValid();
      const changed = this.upd.run(next.pwd_hash, next.gender, next.birthday, this.clock.now(), clientId, member.id, member.pwd_hash).changes;
      if (changed === 0) {
        if (!this.find(clientId, member.id)) throw new ServiceError('NOT_FOUND', 'no such member in this client application');
        throw new ServiceError('INVALID_CREDENTIALS', 'the password was changed meanwhile; try again', input.pwd === undefined ? undefined : 'oldpwd');
      }
      if (input.pwd !== undefined) this.tokens.revokeMember(member.id, author?.tokenHash);
    });
    return next;
  }

  /** Deletes the member; its tokens go with it (ON DELETE CASCADE), so they stop working at once. */
  remove(clientId: string, memberId: string, actor: Actor = CONSOLE): void {
    const member = this.require(clientId, memberId);
    this.writes.now(actor, () => {
      this.tokens.revokeMember(member.id);
      this.del.run(clientId, member.id);
    });
  }
}
