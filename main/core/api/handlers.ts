import { API, type ApiInput, type ApiName, type ApiReply } from '../../../shared/api/operations.js';
import { OK_BODY } from '../../../shared/errors.js';
import type { WarningReply } from '../../../shared/wire.js';
import type { AbuseGuard } from '../abuse.js';
import type { Categories } from '../categories.js';
import type { ChangeLog } from '../changes/change-log.js';
import { ServiceError } from '../errors.js';
import type { Members } from '../members.js';
import type { PoiStore } from '../pois/poi-store.js';
import { poiNotFound, type Pois } from '../pois/pois.js';
import type { PoiQueries } from '../pois/queries.js';
import { warningListPoi } from '../pois/warning-reply.js';
import type { WarningStore } from '../pois/warnings.js';
import type { WritePath } from '../store/write-path.js';
import { actorOf, type Tokens } from '../tokens.js';
import type { CallerOf } from './caller.js';
import { userReply } from './user-reply.js';

/** One function per operation of the API table, given the resolved caller and the checked input. */
export type ApiHandlers = {
  [K in ApiName]: (caller: CallerOf<(typeof API)[K]['access']>, input: ApiInput<K>) => ApiReply<K> | Promise<ApiReply<K>>;
};

export interface ApiParts {
  writes: WritePath;
  tokens: Tokens;
  members: Members;
  abuse: AbuseGuard;
  pois: Pois;
  queries: PoiQueries;
  store: PoiStore;
  categories: Categories;
  warnings: WarningStore;
  changes: ChangeLog;
}

/**
 * The platform's API over the core: each operation once, with its rules. Any token of a client
 * reads, adds POIs and reports warnings; only its administrator updates and deletes; a token
 * never reaches another client's data (every query is scoped by the caller's client).
 */
export function apiHandlers(c: ApiParts): ApiHandlers {
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

    'pois.add': ({ principal }, input) => c.pois.add(principal.clientId, c.tokens.author(principal), input),
    'pois.update': ({ principal }, input) => c.pois.update(principal.clientId, input, c.tokens.author(principal)),
    'pois.get': ({ principal }, { poi }) => c.pois.get(principal.clientId, poi),
    'pois.near': ({ principal }, input) => c.queries.near(principal.clientId, input),
    'pois.where': ({ principal }, input) => c.queries.where(principal.clientId, input),
    'pois.delete': ({ principal }, { poi }) => {
      c.pois.remove(principal.clientId, poi, actorOf(principal));
      return OK_BODY;
    },
    'pois.history': ({ principal }, { poi }) => c.changes.poiHistory(principal.clientId, poi),

    'categories.list': ({ principal }, input) => c.categories.list(principal.clientId, input.include_system_categories === true),
    'categories.add': ({ principal }, { desc }) => c.categories.add(principal.clientId, { desc }, actorOf(principal)),
    'categories.update': ({ principal }, { category, desc }) => c.categories.update(principal.clientId, category, { desc }, actorOf(principal)),
    'categories.delete': ({ principal }, { category }) => {
      c.categories.remove(principal.clientId, category, actorOf(principal));
      return OK_BODY;
    },

    /** Open reports grouped by POI, each with the POI as it is now. */
    'warnings.list': ({ principal }, { poi, type }) => {
      const reports = c.warnings.list(principal.clientId, poi, type);
      const byPoi = new Map<number, WarningReply[]>();
      for (const w of reports) {
        let list = byPoi.get(w.poi_id);
        if (!list) byPoi.set(w.poi_id, (list = []));
        list.push(w);
      }
      const rows = [...byPoi.keys()].map((id) => c.store.get(principal.clientId, id)).filter((r) => r !== undefined);
      return c.pois.replies(rows).map((poi) => ({ current: warningListPoi(poi), warnings: byPoi.get(poi.id) ?? [] }));
    },
    'warnings.add': ({ principal }, input) => {
      const author = c.tokens.author(principal);
      return c.writes.run(author.actor, () => {
        author.assertStillValid();
        if (!c.store.get(principal.clientId, input.poi)) throw poiNotFound(input.poi);
        if (input.type === 'WRONG_INFO' && input.categories) c.categories.assertUsable(principal.clientId, input.categories);
        return c.warnings.add(author.memberId, input);
      });
    },
    /**
     * The administrator marks reports as processed: they stop counting. `poi` may list several
     * POIs (`poi=1,4`, as the old SDK sends it); one that is not the client's refuses the whole call.
     */
    'warnings.delete': ({ principal }, { poi, type }) => {
      const missing = poi.find((id) => !c.store.get(principal.clientId, id));
      if (missing !== undefined) throw poiNotFound(missing);
      c.warnings.remove(poi, type, actorOf(principal));
      return OK_BODY;
    },
  };
}
