import { OK_BODY, type OkBody } from '../../../shared/errors.js';
import type { LoginInput, PageInput, RegisterInput, UpdateMemberInput } from '../../../shared/schemas/members.js';
import type { UserReply } from '../../../shared/wire.js';
import type { AbuseGuard } from '../abuse.js';
import type { Clients } from '../clients.js';
import { ServiceError, validate } from '../errors.js';
import type { Members } from '../members.js';
import { actorOf, type Credential, type Principal, type Tokens } from '../tokens.js';
import type { Actor } from '../store/write-path.js';
import { loginInput } from '../../../shared/schemas/members.js';
import { userReply } from './user-reply.js';

/** Credentials as a request carries them; either may be absent. */
export interface Credentials {
  accessToken?: string | undefined;
  apiKey?: string | undefined;
}

/** Where a request came from, for per-address limits: an IP address, or "desktop" for IPC. */
export type Origin = string;

const adminOnly = (): ServiceError =>
  new ServiceError('FORBIDDEN', 'this operation needs the administrator access_token', 'access_token');

/**
 * The membership operations of the service's API (spec 4.3, 4.4 and api-extensions.md), with
 * their authorization rules. Transports hand it credentials and typed input; it never knows
 * whether the call came over HTTP or IPC.
 */
export class MembershipApi {
  constructor(
    private readonly clients: Clients,
    private readonly members: Members,
    private readonly tokens: Tokens,
    private readonly abuse: AbuseGuard,
  ) {}

  /**
   * Register with the administrator token, or with the api_key of a client that allows
   * Implicit Flow. Only the latter is rate-limited: the administrator is trusted.
   */
  async register(creds: Credentials, input: RegisterInput, origin: Origin): Promise<UserReply> {
    const { clientId, actor } = await this.registrationClient(creds, input, origin);
    const session = await this.members.register(clientId, input, actor);
    return userReply(session.member, session, true);
  }

  private async registrationClient(creds: Credentials, input: RegisterInput, origin: Origin): Promise<{ clientId: string; actor: Actor | 'self' }> {
    let memberToken = false;
    if (creds.accessToken !== undefined && creds.accessToken !== '') {
      const principal = this.tokens.resolve(creds.accessToken);
      if (principal.role === 'admin') {
        if (creds.apiKey && this.clients.find(creds.apiKey)?.id !== principal.clientId) {
          throw new ServiceError('INVALID_API_KEY', 'api_key is not the client of the access_token', 'api_key');
        }
        return { clientId: principal.clientId, actor: actorOf(principal) };
      }
      memberToken = true;
    }
    if (creds.apiKey === undefined || creds.apiKey === '') {
      if (memberToken) throw adminOnly();
      throw new ServiceError(
        'TOKEN_REQUIRED',
        'an administrator access_token, or the api_key of a client with Implicit Flow, is required',
        'access_token',
      );
    }
    const client = this.clients.requireByApiKey(creds.apiKey);
    if (client.implicit_flow !== 1) {
      throw new ServiceError(
        'IMPLICIT_FLOW_DISABLED',
        'this client application does not allow registration with its api_key; use the administrator access_token',
        'api_key',
      );
    }
    await this.abuse.registration(client.id, typeof input.username === 'string' ? input.username : '', origin);
    return { clientId: client.id, actor: 'self' };
  }

  /**
   * Logs in by username or e-mail. An attempt is reserved against both rate limits before the
   * password is checked (so parallel guesses cannot outrun the count) and given back on success:
   * only failures count.
   */
  async login(apiKey: string | undefined, raw: LoginInput, origin: Origin): Promise<UserReply> {
    const client = this.clients.requireByApiKey(apiKey);
    const input = validate(loginInput, raw);
    const named = this.members.findLogin(client.id, input.username);
    const reservation = await this.abuse.reserveLogin(client.id, named?.id, input.username, origin);
    const member = await this.members.checkPassword(named, input.pwd);
    const session = await this.members.startSession(member, input.expiresin);
    await this.abuse.giveBack(reservation);
    return userReply(member, session, true);
  }

  /** Revokes a member's token. The administrator token is not logged out: it is rotated. */
  logout(accessToken: Credential): OkBody {
    const principal = this.tokens.principal(accessToken);
    if (principal.role === 'admin') {
      throw new ServiceError(
        'FORBIDDEN',
        'the administrator token is not logged out; rotate it (client rotate-token) to replace it',
        'access_token',
      );
    }
    this.tokens.revoke(principal.tokenHash, actorOf(principal));
    return OK_BODY;
  }

  list(accessToken: Credential, page: PageInput): UserReply[] {
    const principal = this.admin(accessToken);
    return this.members
      .list(principal.clientId, page)
      .map((m) => userReply(m, { token: null, expiresAt: null }, true));
  }

  /** `me`, or any member of the caller's client; private fields for the admin and for oneself. */
  show(accessToken: Credential, idOrMe: string): UserReply {
    const principal = this.tokens.principal(accessToken);
    const isMe = idOrMe.toLowerCase() === 'me';
    if (isMe && principal.memberId === null) {
      throw new ServiceError('NOT_FOUND', 'the administrator token belongs to no member; ask for a member id');
    }
    const memberId = isMe ? principal.memberId! : idOrMe;
    const member = this.members.require(principal.clientId, memberId);
    const own = member.id === principal.memberId;
    return userReply(
      member,
      { token: null, expiresAt: own ? principal.expiresAt : null },
      own || principal.role === 'admin',
    );
  }

  /** An administrator updates any member of its client, a member only itself. */
  async update(accessToken: Credential, memberId: string, input: UpdateMemberInput): Promise<OkBody> {
    const principal = this.tokens.principal(accessToken);
    const target = memberId.toLowerCase() === 'me' && principal.memberId ? principal.memberId : memberId;
    if (principal.role !== 'admin' && target.toLowerCase() !== principal.memberId) {
      throw new ServiceError('FORBIDDEN', 'a member may only update itself', 'access_token');
    }
    await this.members.update(principal.clientId, target, input, { ...this.tokens.author(principal), tokenHash: principal.tokenHash });
    return OK_BODY;
  }

  remove(accessToken: Credential, memberId: string): OkBody {
    const principal = this.admin(accessToken);
    this.members.remove(principal.clientId, memberId, actorOf(principal));
    return OK_BODY;
  }

  private admin(accessToken: Credential): Principal {
    const principal = this.tokens.principal(accessToken);
    if (principal.role !== 'admin') throw adminOnly();
    return principal;
  }
}
