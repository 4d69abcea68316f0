import type { CoreOp, Handlers } from '../console/handlers.js';
import { OK_BODY } from '../../../shared/errors.js';
import { ServiceError } from '../errors.js';
import type { Services } from '../services.js';
import { userReply } from './user-reply.js';

/** Members of any client application: the operator lists, registers, logs in (no rate limit: the operator is trusted), revokes tokens, updates and deletes. */
export function membersConsole(core: Services): Handlers<Extract<CoreOp, `members.${string}`>> {
  return {
    'members.list': (i) =>
      core.members.list(core.clients.requireId(i.clientId), i.page).map((m) => userReply(m, { token: null, expiresAt: null }, true)),
    'members.register': async (i) => {
      const session = await core.members.register(core.clients.requireId(i.clientId), i.fields);
      return userReply(session.member, session, true);
    },
    'members.login': async (i) => {
      const member = await core.members.authenticate(core.clients.requireId(i.clientId), i.fields.username, i.fields.pwd);
      const session = await core.members.startSession(member, i.fields.expiresin);
      return userReply(member, session, true);
    },
    'members.logout': (i) => {
      if (!core.tokens.revokeToken(i.token)) {
        throw new ServiceError('NOT_FOUND', 'no live token has this value', 'token');
      }
      return OK_BODY;
    },
    'members.delete': (i) => {
      core.members.remove(core.clients.requireId(i.clientId), i.memberId);
      return OK_BODY;
    },
    'members.update': async (i) => {
      await core.members.update(core.clients.requireId(i.clientId), i.memberId, i.fields);
      return OK_BODY;
    },
  };
}
