import type { Core } from '../../core/service.js';
import type { Credential } from '../../core/tokens.js';
import type { WireParams } from '../params.js';
import type { RequestContext, Route } from '../router.js';

const token = (p: WireParams): Credential => p.principal ?? p.text('access_token');

/** Register and login fields; an empty gender or birthday means "not given". */
const memberFields = (p: WireParams) => ({
  gender: p.nullableText('gender'),
  birthday: p.nullableText('birthday'),
});

/** The membership routes of spec 4.3/4.4 and api-extensions.md, below /1/. */
export function userRoutes(core: Core): Route[] {
  const api = core.membership;
  return [
    {
      path: /^users$/,
      token: ['GET'],
      read: ['GET'],
      methods: {
        POST: ({ params: p, origin }: RequestContext) =>
          api.register(
            { accessToken: p.text('access_token'), apiKey: p.text('api_key') },
            {
              username: p.raw('username'),
              pwd: p.raw('pwd'),
              email: p.raw('email'),
              ...memberFields(p),
              expiresin: p.decimal('expiresin'),
            },
            origin,
          ),
        GET: ({ params: p }) => api.list(token(p), { count: p.integer('count'), page: p.integer('page') }),
      },
    },
    {
      path: /^users\/login$/,
      token: ['DELETE'],
      methods: {
        POST: ({ params: p, origin }) =>
          api.login(
            p.text('api_key'),
            { username: p.raw('username'), pwd: p.raw('pwd'), expiresin: p.decimal('expiresin') },
            origin,
          ),
        DELETE: ({ params: p }) => api.logout(token(p)),
      },
    },
    {
      path: /^users\/([^/]+)\/show$/,
      token: true,
      read: true,
      methods: {
        GET: ({ params: p, args }) => api.show(token(p), args[0]!),
        POST: ({ params: p, args }) => api.show(token(p), args[0]!),
      },
    },
    {
      path: /^users\/([^/]+)$/,
      token: true,
      methods: {
        PUT: ({ params: p, args }) => api.update(token(p), args[0]!, updateFields(p)),
        POST: ({ params: p, args }) => api.update(token(p), args[0]!, updateFields(p)),
        DELETE: ({ params: p, args }) => api.remove(token(p), args[0]!),
      },
    },
  ];
}

const updateFields = (p: WireParams) => ({
  pwd: p.raw('pwd'),
  oldpwd: p.raw('oldpwd'),
  ...memberFields(p),
});
