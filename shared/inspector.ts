/**
 * The request inspector (docs/devices.md#request-inspector): what the listener keeps of the API
 * requests it answered, for the Requests panel, `serve --log-format json` and the curl command.
 * Its limits and its list of secret names are declared here once.
 */

/** Requests kept in memory at most; the oldest go first. */
export const INSPECTOR_MAX_ENTRIES = 500;
/** Bytes kept in memory at most (URLs, headers and bodies counted); the oldest go first. */
export const INSPECTOR_MAX_BYTES = 8 * 1024 * 1024;
/** Of each body (request and reply), what is kept; a longer one is cut there and says so. */
export const INSPECTOR_BODY_BYTES = 64 * 1024;
/** JSON shown at most this deep; deeper values are shown as TOO_DEEP (a peer may send 30,000 levels). */
export const INSPECTOR_SHOWN_DEPTH = 64;
export const TOO_DEEP = '(nested too deep to show)';
/** How long `inspector.follow` waits for a new request before it answers an empty list. */
export const INSPECTOR_FOLLOW_MS = 20_000;
/** How long a replay waits for its answer. */
export const INSPECTOR_REPLAY_MS = 10_000;

/**
 * Words that make a parameter, a header or a reply's field a secret, matched anywhere in its name
 * (lower-cased, `-` read as `_`): the API's `pwd`, `oldpwd`, `access_token`, `api_key`,
 * `admin_token` (docs/api.md), and what HTTP carries credentials in. A reply's `client_id` is
 * the client's api_key under another name.
 */
export const SECRET_WORDS = ['pwd', 'password', 'token', 'secret', 'api_key', 'apikey', 'client_id', 'authorization', 'cookie', 'credential'] as const;

/** What a secret's value is shown as, and what the curl command without secrets carries instead. */
export const MASK = '***';

export const isSecretName = (name: string): boolean => {
  const normal = name.toLowerCase().replaceAll('-', '_');
  return SECRET_WORDS.some((word) => normal.includes(word));
};

/** What authenticated a call: the client's api_key or administrator token, a member's token, or nothing. */
export const CALLER_KINDS = ['client', 'member', 'anonymous'] as const;
export type CallerKind = (typeof CALLER_KINDS)[number];

/** One request in the list: the same fields `serve --log-format json` prints (no bodies, no query string). */
export interface RequestSummary {
  id: number;
  /** When it arrived, ISO 8601. */
  time: string;
  /** The device's address. */
  address: string;
  scheme: 'http' | 'https';
  method: string;
  path: string;
  /** The API operation (shared/api/operations.ts), or null for a path that is none. */
  operation: string | null;
  status: number;
  ms: number;
  caller: CallerKind;
  /** The request this one replayed (`inspector.replay`), or null. */
  replayOf: number | null;
}

/** A body as kept: its text (secrets masked), and whether it was cut at INSPECTOR_BODY_BYTES. */
export interface InspectedBody {
  /** `form` (URL-encoded or multipart fields, one `name=value` a line), `json`, or the reply's `text`. */
  kind: 'form' | 'json' | 'text';
  text: string;
  truncated: boolean;
}

/** One request opened: its URL with the query's secrets masked, headers and bodies, masked. */
export interface RequestDetail extends RequestSummary {
  url: string;
  /** Its operation writes (adds, changes or deletes): a replay does it again, so the panel asks first. */
  writes: boolean;
  requestHeaders: Array<[string, string]>;
  requestBody: InspectedBody | null;
  replyHeaders: Array<[string, string]>;
  replyBody: InspectedBody | null;
}

/** What `inspector.follow` answers: the requests after `after`, newest first, and the newest id to ask after next. */
export interface RequestFeed {
  entries: RequestSummary[];
  last: number;
  /** False when nothing is kept because the inspector is off. */
  enabled: boolean;
}

/** What `inspector.replay` answers: the replay's own entry (null if it was not kept), its status and its reply, masked. */
export interface ReplayResult {
  id: number | null;
  replayOf: number;
  status: number;
  body: InspectedBody;
}
