import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { errorBody } from '../../shared/errors.js';

const sameSecret = (given: string | undefined, secret: string): boolean => {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** The console token in `Authorization: Bearer`, as every console operation needs. */
export function authorized(request: FastifyRequest, token: string): boolean {
  const header = request.headers.authorization;
  return sameSecret(header?.startsWith('Bearer ') ? header.slice(7) : undefined, token);
}

// WWW-Authenticate tells the page this 401 is the console's own, not an operation's (a wrong
// member password is a 401 too): the page then asks for the token and sends the request again.
export const refuse = (reply: FastifyReply): FastifyReply =>
  reply
    .code(401)
    .header('www-authenticate', 'Bearer realm="POI console"')
    .send({ ok: false, error: errorBody('TOKEN_REQUIRED', 'the console token is missing or wrong') });

/**
 * The key in map tile URLs. Tiles are fetched by Leaflet's images and the vector renderer's
 * fetch, which send no header, so they carry a key in the URL instead of the token. It is
 * derived from the token (a new token, a new key) and opens nothing but tiles, so a tile URL
 * that ends up in a log or a history gives no operation to whoever reads it.
 */
export const tileKey = (token: string): string => createHmac('sha256', token).update('poi map tiles').digest('base64url').slice(0, 32);

export const tileKeyMatches = (given: string | undefined, token: string): boolean => sameSecret(given, tileKey(token));
