import { API, type ApiName, type ApiOperation, type Verb } from '../../shared/api/operations.js';
import { ServiceError, validate } from '../core/errors.js';
import type { ReplyHeader } from '../core/api/handlers.js';
import type { Core } from '../core/service.js';
import type { WireParams } from './params.js';
import { wireInput, wireKeys } from './wire-input.js';
import { ReplyMemo } from './reply-memo.js';
import type { CallerKind } from '../../shared/inspector.js';
import { callerKind } from './inspector/capture.js';

interface Route {
  name: ApiName;
  operation: ApiOperation;
  pattern: RegExp;
  /** The names of the path parameters, in the pattern's capture order. */
  pathNames: string[];
  keys: ReturnType<typeof wireKeys>;
}

/** `users/{id}/show` -> /^users\/([^/]+)\/show$/ and ['id']. */
function compile(name: ApiName, operation: ApiOperation): Route {
  const pathNames: string[] = [];
  const source = operation.path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      pathNames.push(param[1]!);
      return '([^/]+)';
    })
    .join('\\/');
  return { name, operation, pattern: new RegExp(`^${source}$`), pathNames, keys: wireKeys(operation.input) };
}

const ROUTES: readonly Route[] = (Object.keys(API) as ApiName[]).map((name) => compile(name, API[name]));

/** Routes by their path where it has no parameters (`pois/add`): one map lookup instead of a regex per route. */
const AT_FIXED_PATH = new Map<string, Route[]>();
const WITH_PARAMS: Route[] = [];
for (const route of ROUTES) {
  if (route.pathNames.length > 0) WITH_PARAMS.push(route);
  else AT_FIXED_PATH.set(route.operation.path, [...(AT_FIXED_PATH.get(route.operation.path) ?? []), route]);
}
const ORDER = new Map(ROUTES.map((route, i) => [route, i]));

/**
 * The routes whose path matches `resource`, in the table's order, with what each captured. Most
 * requests ask a path without parameters: trying every route's pattern cost a regex and a match
 * array per route per request, where only the few routes with parameters need one.
 */
function routesAt(resource: string): Array<{ route: Route; captured: string[] }> {
  const found = (AT_FIXED_PATH.get(resource) ?? []).map((route) => ({ route, captured: [] as string[] }));
  for (const route of WITH_PARAMS) {
    const match = route.pattern.exec(resource);
    if (match) found.push({ route, captured: match.slice(1) });
  }
  return found.length > 1 ? found.sort((a, b) => ORDER.get(a.route)! - ORDER.get(b.route)!) : found;
}

const SHAPE = /^\/([^/]*)\/(.+)\.([^/.]*)$/;
const SUPPORTED_VERSION = '1';

function decodeSegment(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new ServiceError('MALFORMED_REQUEST', 'the path has a malformed percent-encoding');
  }
}

export interface Resolved {
  route: Route;
  pathArgs: Record<string, string>;
}

/** The operation at `/{version}/<resource>.{format}` for this verb, or the error that says why not. */
export function resolveOperation(method: string, pathname: string): Resolved {
  const shape = SHAPE.exec(pathname);
  if (!shape) throw new ServiceError('NOT_FOUND', 'paths look like /1/<resource>.json');
  const [, version, resource, format] = shape as unknown as [string, string, string, string];
  if (version !== SUPPORTED_VERSION) throw new ServiceError('UNSUPPORTED_VERSION', `API version ${version} is not supported; use 1`);
  if (format.toLowerCase() !== 'json') throw new ServiceError('UNSUPPORTED_FORMAT', `format ${format} is not available; use json`);
  const atPath = routesAt(resource);
  if (atPath.length === 0) throw new ServiceError('NOT_FOUND', `no operation at /${version}/${resource}.${format}`);
  // HEAD is GET without the body, so only where GET only reads: a HEAD must never write.
  const found = atPath.find(({ route }) =>
    method === 'HEAD' ? route.operation.reads && route.operation.verbs.includes('GET') : route.operation.verbs.includes(method as Verb),
  );
  if (!found) {
    const verbs = [...new Set(atPath.flatMap(({ route }) => route.operation.verbs))];
    throw new ServiceError('METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${verbs.join(' or ')}`);
  }
  const captured = found.captured.map(decodeSegment);
  return { route: found.route, pathArgs: Object.fromEntries(found.route.pathNames.map((n, i) => [n, captured[i]!])) };
}

/**
 * Runs one operation of the API table: who is asking first (a bad token is a 401 whatever the
 * parameters), then the input built from the wire by the schema's keys and checked once, then
 * the core's one function for it. Reads run in one read transaction; heavy ones take turns;
 * repeatable ones asked again by the same URL are answered from the memo (reply-memo.ts).
 */
export class ApiRunner {
  readonly memo: ReplyMemo;

  constructor(
    private readonly core: Core,
    options: { memo?: boolean } = {},
  ) {
    this.memo = new ReplyMemo(core, options.memo ?? true);
  }

  /**
   * `header` adds a header to the reply (see ReplyHeader). `url` is given where the request is
   * a GET without a body: all it asks is in its URL, and a repeatable read may be remembered by it.
   * `seen.caller` is set to what authenticated the call, once it is known (the request log's).
   */
  run({ route, pathArgs }: Resolved, params: WireParams, origin: string, header?: ReplyHeader, url?: string, seen: { caller: CallerKind } = { caller: 'anonymous' }): unknown {
    let until = Infinity;
    let keep = true;
    let poi: number | undefined;
    const answer = (): unknown => {
      const caller = this.core.resolveCaller(route.operation.access, {
        accessToken: params.text('access_token'),
        apiKey: params.text('api_key'),
        origin,
      });
      if ('principal' in caller) until = caller.principal?.expiresAt ?? Infinity;
      seen.caller = callerKind(caller);
      const input = validate(route.operation.input, wireInput(route.keys, params, pathArgs));
      // What the memo drops the reply with: a write to this POI (reply-memo.ts).
      const subject: unknown = typeof input === 'object' && input !== null && 'poi' in input ? input.poi : undefined;
      if (typeof subject === 'number') poi = subject;
      const handler = this.core.api[route.name] as (caller: unknown, input: unknown, header?: ReplyHeader) => unknown;
      const headed: ReplyHeader | undefined = header && ((name, value) => ((keep = false), header(name, value)));
      return handler(caller, input, headed);
    };
    // A read that goes on after a turn of the event loop (a text search in slices) returns a
    // promise: its synchronous part runs in the read transaction, the rest reads on its own. The
    // box keeps better-sqlite3 from refusing a transaction that returns a promise.
    const inTransaction = (): unknown => (route.operation.reads ? this.core.read(() => ({ answer: answer() })).answer : answer());
    if (route.operation.repeatable && url !== undefined && this.memo.enabled) {
      return this.memo.remember(url, () => ({ reply: inTransaction(), until, keep, caller: seen.caller, poi }));
    }
    return route.operation.heavy ? this.core.heavy.run(inTransaction) : inTransaction();
  }
}
