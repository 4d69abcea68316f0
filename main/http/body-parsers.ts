import busboy from 'busboy';
import type { FastifyInstance } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { ServiceError } from '../core/errors.js';
import { parseUrlEncoded, type Entries } from './params.js';

/**
 * What the parsers leave in request.body: form fields in arrival order (duplicates kept), or a
 * JSON value, which the API reads as flat parameters and the console as its structured input.
 */
/** A form's entries, or a JSON value with the text it was read from (the request inspector keeps the text, not the value). */
export type ParsedBody = { entries: Entries } | { json: unknown; text: string };

const tooLarge = (limit: number): ServiceError =>
  new ServiceError('PAYLOAD_TOO_LARGE', `the request body is larger than ${limit} bytes`);

const malformed = (what: string): ServiceError => new ServiceError('MALFORMED_REQUEST', what);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Bodies must be UTF-8: invalid bytes are refused, not replaced. */
function strictUtf8(body: string | Buffer): string {
  if (typeof body === 'string') return body;
  try {
    return utf8.decode(body);
  } catch {
    throw malformed('the request body is not valid UTF-8');
  }
}

/** The API accepts a JSON body as a flat object of scalars, for clients newer than the SDK. */
export function jsonEntries(value: unknown): Entries {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw malformed('the JSON body must be an object of parameters');
  }
  return Object.entries(value).map(([name, v]): [string, string] => {
    if (v === null) return [name, ''];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return [name, String(v)];
    throw malformed(`the JSON parameter ${name} must be a string, number, boolean or null`);
  });
}

function multipartEntries(headers: IncomingHttpHeaders, payload: Readable, limit: number): Promise<Entries> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers,
        limits: { fieldNameSize: 200, fieldSize: limit, fields: 200, files: 0, parts: 200 },
        defParamCharset: 'utf8',
      });
    } catch {
      reject(malformed('the multipart body has no boundary'));
      return;
    }
    const entries: Entries = [];
    let settled = false;
    let bytes = 0;
    const fail = (error: ServiceError): void => {
      if (settled) return;
      settled = true;
      payload.unpipe(parser);
      payload.resume();
      reject(error);
    };
    // busboy would decode invalid UTF-8 into U+FFFD; with file parts refused, the whole body is
    // text, so checking all of it as it streams in catches every bad field byte-exactly.
    const check = new TextDecoder('utf-8', { fatal: true });
    payload.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limit) fail(tooLarge(limit));
      try {
        check.decode(chunk, { stream: true });
      } catch {
        fail(malformed('the multipart body is not valid UTF-8'));
      }
    });
    parser.on('field', (name: string | undefined, value, info) => {
      if (info.nameTruncated || info.valueTruncated) fail(tooLarge(limit));
      else if (name) entries.push([name, value]);
    });
    parser.on('file', (_name, stream) => stream.resume());
    parser.on('filesLimit', () => fail(malformed('file parts are not accepted; send parameters as fields')));
    parser.on('fieldsLimit', () => fail(malformed('too many fields')));
    parser.on('partsLimit', () => fail(malformed('too many parts')));
    parser.on('error', () => fail(malformed('the multipart body is malformed or truncated')));
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      resolve(entries);
    });
    payload.on('error', () => fail(malformed('the request body was cut off')));
    payload.pipe(parser);
  });
}

/**
 * Replaces Fastify's parsers: url-encoded and multipart forms (both used by old clients) and
 * flat JSON. Any other content type with a body is refused with 415.
 */
export function registerBodyParsers(app: FastifyInstance, limit: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'buffer', bodyLimit: limit },
    (_req, body, done) => {
      try {
        done(null, { entries: parseUrlEncoded(strictUtf8(body)) } satisfies ParsedBody);
      } catch (error) {
        done(error instanceof Error ? error : malformed('unreadable body'), undefined);
      }
    },
  );
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: limit }, (_req, body, done) => {
    try {
      const text = strictUtf8(body);
      if (text.trim() === '') throw malformed('the JSON body is empty');
      done(null, { json: JSON.parse(text) as unknown, text } satisfies ParsedBody);
    } catch (error) {
      done(error instanceof ServiceError ? error : malformed('the JSON body is not valid JSON'), undefined);
    }
  });
  app.addContentTypeParser('multipart/form-data', (req, payload, done) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      payload.resume();
      done(tooLarge(limit), undefined);
      return;
    }
    multipartEntries(req.headers, payload, limit).then(
      (entries) => done(null, { entries } satisfies ParsedBody),
      (error: ServiceError) => done(error, undefined),
    );
  });
}
