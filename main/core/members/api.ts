import type { ApiName } from '../../../shared/api/operations.js';
import type { ApiHandlers, ApiParts } from '../api/handlers.js';
import { OK_BODY } from '../../../shared/errors.js';
import { ServiceError } from '../errors.js';
import { actorOf } from '../tokens/tokens.js';
import { userReply } from './user-reply.js';

/**
 * Members of a client application: register, log in and out, show, list, update, delete
 * (docs/api-spec.md#register-a-member, docs/api-spec.md#log-in, docs/api-spec.md#members).
 */
export function membersApi(c: ApiParts): Pick<ApiHandlers, Extract<ApiName, `users.${string}`>> {
  return {
    'users.register': async ({ clientId, principal, origin }, input) => {
      // Only registration through the api_key is rate-limited: the administrator is trusted.
      if (!principal) await c.abuse.registration(clientId, input.username, origin);
      const session = await c.members.register(clientId, input, principal ? actorOf(principal) : 'self');
      return userReply(session.member, session, true);
    },
    'users.list': ({ principal }, input) =>
      c.members.list(principal.clientId, input).map((m) => userReply(m, { token: null, expiresAt: null }, true)),
    /**
     * An attempt is reserved against both rate limits before the password is checked (so
     * parallel guesses cannot outrun the count) and given back on success: only failures count.
     */
    'users.login': async ({ client, origin }, input) => {
      const named = c.members.findLogin(client.id, input.username);
      const reservation = await c.abuse.reserveLogin(client.id, named?.id, input.username, origin);
      const member = await c.members.checkPassword(named, input.pwd);
      const session = await c.members.startSession(member, input.expiresin);
      await c.abuse.giveBack(reservation);
      return userReply(member, session, true);
    },
    'users.logout': ({ principal }) => {
      if (principal.role === 'admin') {
        throw new ServiceError('FORBIDDEN', 'the administrator token is not logged out; rotate it (client rotate-token) to replace it', 'access_token');
      }
      c.tokens.revoke(principal.tokenHash, actorOf(principal));
      return OK_BODY;
    },
    /** `me`, or any member of the caller's client; private fields for the admin and for oneself. */
    'users.show': ({ principal }, { id }) => {
      const isMe = id.toLowerCase() === 'me';
      if (isMe && principal.memberId === null) {
        throw new ServiceError('NOT_FOUND', 'the administrator token belongs to no member; ask for a member id');
      }
      const member = c.members.require(principal.clientId, isMe ? principal.memberId! : id);
      const own = member.id === principal.memberId;
      return userReply(member, { token: null, expiresAt: own ? principal.expiresAt : null }, own || principal.role === 'admin');
    },
    /** An administrator updates any member of its client, a member only itself. */
    'users.update': async ({ principal }, { id, ...fields }) => {
      const target = id.toLowerCase() === 'me' && principal.memberId ? principal.memberId : id;
      if (principal.role !== 'admin' && target.toLowerCase() !== principal.memberId) {
        throw new ServiceError('FORBIDDEN', 'a member may only update itself', 'access_token');
      }
      await c.members.update(principal.clientId, target, fields, { ...c.tokens.author(principal), tokenHash: principal.tokenHash });
      return OK_BODY;
    },
    'users.delete': ({ principal }, { id }) => {
      c.members.remove(principal.clientId, id, actorOf(principal));
      return OK_BODY;
    },
  };
}
