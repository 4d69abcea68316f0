import { OK_BODY } from '../../../shared/errors.js';
import type { OpName, Output, ValidInput } from '../../../shared/contract.js';
import { userReply } from '../api/user-reply.js';
import { ServiceError } from '../errors.js';
import type { Core } from '../service.js';

export type Handler<K extends OpName> = (input: ValidInput<K>) => Output<K> | Promise<Output<K>>;
export type Handlers<K extends OpName> = { [P in K]: Handler<P> };

/**
 * The listener is not the core's: its two operations are handled where the listener lives; nor
 * is opening a link, which only the desktop shell does.
 */
export type CoreOp = Exclude<OpName, 'listener.status' | 'listener.configure' | 'app.openExternal'>;

const client = (core: Core, clientId: string): string => {
  const row = core.clients.find(clientId);
  if (!row) throw new ServiceError('NOT_FOUND', 'no such client application', 'clientId');
  return row.id;
};

/**
 * The console's operations over the core: the operator of this computer acting on any client
 * application, without client tokens. Inputs arrive validated by the contract's schemas.
 */
export function consoleHandlers(core: Core): Handlers<CoreOp> {
  return {
    'clients.list': () => core.clients.list(),
    'clients.create': (i) => core.clients.create({ name: i.name, implicitFlow: i.implicitFlow ?? false }),
    'clients.setImplicitFlow': (i) => core.clients.setImplicitFlow(i.clientId, i.enabled),
    'clients.rotateToken': (i) => ({ client_id: client(core, i.clientId), admin_token: core.clients.rotateAdminToken(i.clientId) }),

    'categories.list': (i) => core.categories.list(client(core, i.clientId), true),
    'categories.add': (i) => core.categories.add(client(core, i.clientId), { desc: i.desc }),
    'categories.update': (i) => core.categories.update(client(core, i.clientId), i.category, { desc: i.desc }),
    'categories.delete': (i) => {
      core.categories.remove(client(core, i.clientId), i.category);
      return OK_BODY;
    },

    'pois.map': (i) => core.clusters.view(client(core, i.clientId), i),
    'pois.version': () => core.watch.version(),
    'pois.get': (i) => core.pois.get(client(core, i.clientId), i.poi),
    'pois.add': (i) => core.pois.add(client(core, i.clientId), null, i.fields),
    'pois.update': (i) => core.pois.update(client(core, i.clientId), i.fields),
    'pois.delete': (i) => {
      core.pois.remove(client(core, i.clientId), i.poi);
      return OK_BODY;
    },
    'pois.search': (i) => core.queries.where(client(core, i.clientId), i.filter),
    'warnings.list': (i) => core.warnings.list(client(core, i.clientId), [i.poi], undefined),
    'pois.history': (i) => core.changes.poiHistory(client(core, i.clientId), i.poi),

    'members.list': (i) =>
      core.members.list(client(core, i.clientId), i.page).map((m) => userReply(m, { token: null, expiresAt: null }, true)),
    'members.register': async (i) => {
      const session = await core.members.register(client(core, i.clientId), i.fields);
      return userReply(session.member, session, true);
    },
    'members.login': async (i) => {
      const member = await core.members.authenticate(client(core, i.clientId), i.fields.username, i.fields.pwd);
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
      core.members.remove(client(core, i.clientId), i.memberId);
      return OK_BODY;
    },
    'members.update': async (i) => {
      await core.members.update(client(core, i.clientId), i.memberId, i.fields);
      return OK_BODY;
    },

    'settings.get': () => core.settings.map(),
    'settings.set': (i) => core.settings.setMap(i),
  };
}
