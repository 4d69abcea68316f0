import { ServiceError } from '../core/errors.js';
import type { WireParams } from './params.js';

export interface RequestContext {
  params: WireParams;
  /** The captured segments of the route's path pattern, percent-decoded. */
  args: string[];
  /** The remote address, for per-address limits. */
  origin: string;
}

export type Handler = (ctx: RequestContext) => unknown;

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A resource path below `/{version}/`, without the `.{format}` suffix. */
export interface Route {
  path: RegExp;
  methods: Partial<Record<Method, Handler>>;
  /** These verbs (true: all) need a valid access_token, checked before any parameter. */
  token?: boolean | readonly Method[];
  /**
   * These verbs (true: all) only read, synchronously: they run in one read transaction with the
   * token check, and HEAD is answered for them (and only for them) as GET without a body.
   */
  read?: boolean | readonly Method[];
}

/** Operations the spec documents as GET were also called with POST by real clients. */
export const getOrPost = (handler: Handler): Partial<Record<Method, Handler>> => ({ GET: handler, POST: handler });

const SHAPE = /^\/([^/]*)\/(.+)\.([^/.]*)$/;

export const SUPPORTED_VERSION = '1';

function decodeSegment(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new ServiceError('MALFORMED_REQUEST', 'the path has a malformed percent-encoding');
  }
}

/** Finds the handler for `/{version}/<resource>.{format}`, or the error that explains why not. */
export function resolveRoute(routes: readonly Route[], method: string, pathname: string): { handler: Handler; needsToken: boolean; read: boolean; args: string[] } {
  const shape = SHAPE.exec(pathname);
  if (!shape) {
    throw new ServiceError('NOT_FOUND', 'paths look like /1/<resource>.json');
  }
  const [, version, resource, format] = shape as unknown as [string, string, string, string];
  if (version !== SUPPORTED_VERSION) {
    throw new ServiceError('UNSUPPORTED_VERSION', `API version ${version} is not supported; use 1`);
  }
  if (format.toLowerCase() !== 'json') {
    throw new ServiceError('UNSUPPORTED_FORMAT', `format ${format} is not available; use json`);
  }
  for (const route of routes) {
    const match = route.path.exec(resource);
    if (!match) continue;
    const reads = (v: string): boolean => route.read === true || (Array.isArray(route.read) && route.read.includes(v as Method));
    // HEAD is GET without the body, so only where GET only reads: a HEAD must never write.
    const verb = (method === 'HEAD' && reads('GET') ? 'GET' : method) as Method;
    const handler = Object.hasOwn(route.methods, verb) ? route.methods[verb] : undefined;
    if (!handler) {
      throw new ServiceError(
        'METHOD_NOT_ALLOWED',
        `${method} is not allowed here; use ${Object.keys(route.methods).join(' or ')}`,
      );
    }
    const needsToken = route.token === true || (Array.isArray(route.token) && route.token.includes(verb));
    return { handler, needsToken, read: reads(verb), args: match.slice(1).map(decodeSegment) };
  }
  throw new ServiceError('NOT_FOUND', `no operation at /${version}/${resource}.${format}`);
}
