import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { INSPECTOR_BODY_BYTES, type CallerKind, type InspectedBody, type RequestDetail, type RequestSummary } from '../../../shared/inspector.js';
import type { ApiKeyCaller, RegistrarCaller, TokenCaller } from '../../core/api/caller.js';
import type { Entries } from '../params.js';
import { resolveOperation } from '../api-runner.js';
import { maskEntries, maskHeaders, maskJsonBody, maskJsonText, maskUrl, type Headers } from './mask.js';

/**
 * What is kept of a request's body: its form fields (URL-encoded or multipart), or a JSON body's
 * text. The text, not the parsed value: a value costs many times its text in memory (an array of
 * 30,000 empty objects, 60 KB sent, is megabytes parsed), and the ring counts what it holds.
 */
export type CapturedBody = { form: 'urlencoded' | 'multipart'; entries: Entries } | { jsonText: string };

/** Headers a replay or a curl command must not copy: the connection's own, and the body's length. */
export const HOP_HEADERS: ReadonlySet<string> = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'upgrade', 'expect']);

/** The header that marks a replay's request (replay.ts), with the nonce of the request it replays. */
export const REPLAY_HEADER = 'x-poi-inspector-replay';

const pathOf = (url: string): string => url.split('?', 1)[0]!;

/**
 * One request the listener answered, as the request log and the inspector's ring hold it. Capture
 * keeps references (the headers object, the parsed body, the reply's text) and masks nothing:
 * the masking and the operation's name are worked out only when someone reads it.
 */
export class Exchange {
  id = 0;
  status = 0;
  ms = 0;
  caller: CallerKind = 'anonymous';
  replayOf: number | null = null;
  body: CapturedBody | undefined;
  /** The request body was cut at INSPECTOR_BODY_BYTES. */
  bodyTruncated = false;
  /** The characters of the body kept: what the ring counts for it. */
  bodyBytes = 0;
  reply: string | Buffer | undefined;
  replyTruncated = false;
  /** The reply's headers; or, for a reply the listener wrote itself, its type and the headers its handler added. */
  replyHeaders: Headers | undefined;
  private replyType: string | undefined;
  /** Bytes counted against the ring's limit. */
  bytes = 0;
  private named: string | null | undefined;

  constructor(
    /** Milliseconds since the epoch. */
    readonly time: number,
    readonly scheme: 'http' | 'https',
    readonly address: string,
    readonly method: string,
    readonly url: string,
    readonly headers: IncomingHttpHeaders,
  ) {}

  static of(request: IncomingMessage): Exchange {
    const scheme = 'encrypted' in request.socket && request.socket.encrypted === true ? 'https' : 'http';
    return new Exchange(Date.now(), scheme, request.socket.remoteAddress ?? '', request.method ?? '', request.url ?? '/', request.headers);
  }

  get path(): string {
    return pathOf(this.url);
  }

  /** The API operation at this method and path, named when it is first asked. */
  get operation(): string | null {
    if (this.named === undefined) {
      try {
        this.named = resolveOperation(this.method, this.path).route.name;
      } catch {
        this.named = null;
      }
    }
    return this.named;
  }

  set operation(name: string | null) {
    this.named = name;
  }

  /** Keeps the request's form fields or JSON text, or their first INSPECTOR_BODY_BYTES. */
  keepBody(body: { form: 'urlencoded' | 'multipart'; entries: Entries } | { text: string }): void {
    if ('text' in body) {
      this.bodyTruncated = body.text.length > INSPECTOR_BODY_BYTES;
      // A copy when cut: a slice would keep the whole text alive.
      const jsonText = this.bodyTruncated ? Buffer.from(body.text.slice(0, INSPECTOR_BODY_BYTES)).toString() : body.text;
      this.body = { jsonText };
      this.bodyBytes = jsonText.length;
      return;
    }
    let size = 0;
    const kept: Entries = [];
    for (const [name, value] of body.entries) {
      size += name.length + value.length + 2;
      if (size > INSPECTOR_BODY_BYTES) {
        this.bodyTruncated = true;
        break;
      }
      kept.push([name, value]);
    }
    this.body = this.bodyTruncated ? { form: body.form, entries: kept } : body;
    this.bodyBytes = Math.min(size, INSPECTOR_BODY_BYTES);
  }

  /** A header the handler added to a reply the listener writes itself (server.ts, answerDirectly). */
  addReplyHeader(name: string, value: string): void {
    (this.replyHeaders ??= {})[name.toLowerCase()] = value;
  }

  /**
   * Keeps the reply's bytes, or a copy of the first INSPECTOR_BODY_BYTES of them, and its headers
   * (Fastify's), or its content type alone (the headers of a reply written directly are known).
   */
  keepReply(reply: string | Buffer, headers: Headers | string): void {
    if (typeof headers === 'string') this.replyType = headers;
    else this.replyHeaders = headers;
    if (reply.length <= INSPECTOR_BODY_BYTES) {
      this.reply = reply;
      return;
    }
    this.replyTruncated = true;
    // A copy: a slice of a string or a Buffer would keep the whole reply alive.
    this.reply = Buffer.from(typeof reply === 'string' ? Buffer.from(reply).subarray(0, INSPECTOR_BODY_BYTES) : reply.subarray(0, INSPECTOR_BODY_BYTES));
  }

  /** Whether its operation writes; a path that is none writes nothing. */
  private writes(): boolean {
    try {
      return !resolveOperation(this.method, this.path).route.operation.reads;
    } catch {
      return false;
    }
  }

  summary(): RequestSummary {
    return {
      id: this.id,
      time: new Date(this.time).toISOString(),
      address: this.address,
      scheme: this.scheme,
      method: this.method,
      path: this.path,
      operation: this.operation,
      status: this.status,
      ms: Number(this.ms.toFixed(1)),
      caller: this.caller,
      replayOf: this.replayOf,
    };
  }

  /** Everything kept of it, secrets masked. */
  detail(): RequestDetail {
    return {
      ...this.summary(),
      url: maskUrl(this.url),
      writes: this.writes(),
      requestHeaders: maskHeaders(this.headers),
      requestBody: this.body === undefined ? null : shownBody(this.body, this.bodyTruncated),
      replyHeaders: this.replyType === undefined ? maskHeaders(this.replyHeaders ?? {}) : [['content-type', this.replyType], ...maskHeaders(this.replyHeaders ?? {})],
      replyBody: this.reply === undefined ? null : { kind: 'text', text: this.replyTruncated ? maskJsonText(this.reply.toString()) : maskJsonBody(this.reply.toString(), 0), truncated: this.replyTruncated },
    };
  }
}

function shownBody(body: CapturedBody, truncated: boolean): InspectedBody {
  if ('jsonText' in body) {
    const text = maskJsonBody(body.jsonText);
    return text.length > INSPECTOR_BODY_BYTES ? { kind: 'json', text: text.slice(0, INSPECTOR_BODY_BYTES), truncated: true } : { kind: 'json', text, truncated };
  }
  return { kind: 'form', text: maskEntries(body.entries).map(([name, value]) => `${name}=${value}`).join('\n'), truncated };
}

/** Who authenticated a call (api-runner.ts resolves it): the client's api_key or administrator token, or a member's token. */
export function callerKind(caller: TokenCaller | ApiKeyCaller | RegistrarCaller): CallerKind {
  if ('client' in caller) return 'client';
  if (caller.principal === null) return 'client';
  return caller.principal.role === 'member' ? 'member' : 'client';
}
