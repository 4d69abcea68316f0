import type { Access } from '../../../shared/api/operations.js';
import type { ClientRow, Clients } from '../clients/clients.js';
import { ServiceError } from '../errors.js';
import type { Principal, Tokens } from '../tokens/tokens.js';

/** The credentials a request carries, and where it came from (an address, for rate limits). */
export interface Credentials {
  accessToken?: string | undefined;
  apiKey?: string | undefined;
  origin: string;
}

/** A caller with a token of the client: a member, or the client's administrator. */
export interface TokenCaller {
  principal: Principal;
  origin: string;
}

/** A caller with the client's api_key (login). */
export interface ApiKeyCaller {
  client: ClientRow;
  origin: string;
}

/** A registration: by the client's administrator (principal), or through the api_key (principal null). */
export interface RegistrarCaller {
  clientId: string;
  principal: Principal | null;
  origin: string;
}

export type CallerOf<A extends Access> = A extends 'member' | 'admin' ? TokenCaller : A extends 'apiKey' ? ApiKeyCaller : RegistrarCaller;

const adminOnly = (): ServiceError => new ServiceError('FORBIDDEN', 'this operation needs the administrator access_token', 'access_token');

const given = (value: string | undefined): value is string => value !== undefined && value !== '';

/**
 * Who is asking, checked against what the operation allows, before anything else of the request
 * is read: a bad token is a 401 whatever the parameters.
 */
export function resolveCaller<A extends Access>(tokens: Tokens, clients: Clients, access: A, creds: Credentials): CallerOf<A> {
  const caller = ((): TokenCaller | ApiKeyCaller | RegistrarCaller => {
    switch (access) {
      case 'member':
        return { principal: tokens.resolve(creds.accessToken), origin: creds.origin };
      case 'admin': {
        const principal = tokens.resolve(creds.accessToken);
        if (principal.role !== 'admin') throw adminOnly();
        return { principal, origin: creds.origin };
      }
      case 'apiKey':
        return { client: clients.requireByApiKey(creds.apiKey), origin: creds.origin };
      case 'apiKeyOrAdmin':
        return registrar(tokens, clients, creds);
    }
    throw new Error(`unknown access level ${String(access)}`);
  })();
  return caller as CallerOf<A>;
}

/** Register: the administrator token, or the api_key of a client that allows Implicit Flow. */
function registrar(tokens: Tokens, clients: Clients, creds: Credentials): RegistrarCaller {
  if (given(creds.accessToken)) {
    const principal = tokens.resolve(creds.accessToken);
    if (principal.role === 'admin') {
      if (given(creds.apiKey) && clients.find(creds.apiKey)?.id !== principal.clientId) {
        throw new ServiceError('INVALID_API_KEY', 'api_key is not the client of the access_token', 'api_key');
      }
      return { clientId: principal.clientId, principal, origin: creds.origin };
    }
    if (!given(creds.apiKey)) throw adminOnly();
  }
  if (!given(creds.apiKey)) {
    throw new ServiceError('TOKEN_REQUIRED', 'an administrator access_token, or the api_key of a client with Implicit Flow, is required', 'access_token');
  }
  const client = clients.requireByApiKey(creds.apiKey);
  if (client.implicit_flow !== 1) {
    throw new ServiceError(
      'IMPLICIT_FLOW_DISABLED',
      'this client application does not allow registration with its api_key; use the administrator access_token',
      'api_key',
    );
  }
  return { clientId: client.id, principal: null, origin: creds.origin };
}
