import type { FastifyInstance } from 'fastify';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { z } from 'zod';
import type { Answer } from '../../shared/contract.js';
import { exportChoice, poisFileName, FILE_FORMATS, type CsvFlavour, type ExportFormat } from '../../shared/file-formats.js';
import { ServiceError, validate } from '../core/errors.js';
import { exportStream } from '../core/exports/poi-export.js';
import type { Core } from '../core/service.js';
import { authorized, refuse } from './console-auth.js';

export interface DownloadRouteOptions {
  token: () => string;
  exportPois: Core['exportPois'];
  /** The client, for the name of its file. */
  requireClient: Core['requireClient'];
  /** An export job's finished file, and the job (its report names the file). */
  exportFile: (jobId: string) => { file: string; format: ExportFormat; fileName: string };
}

const guid = z.string().regex(/^[0-9a-f-]{36}$/i, 'must be an id');
/** A finished export job's file (what the page downloads), or the client's POIs streamed as they are now (scripts). */
const ofJob = z.object({ jobId: guid });
const ofClient = z.object({ clientId: guid, ...exportChoice });
/** Told apart by the job's id, so that a refusal names the field of the request that was meant. */
const asked = (body: unknown): z.output<typeof ofJob> | z.output<typeof ofClient> =>
  typeof body === 'object' && body !== null && 'jobId' in body ? validate<z.output<typeof ofJob>>(ofJob, body) : validate<z.output<typeof ofClient>>(ofClient, body);

/** How long a download address stays usable, and how many may wait at once. */
const TICKET_MS = 60_000;
const MAX_TICKETS = 100;

interface Ticket {
  what: { jobId: string } | { clientId: string; format: ExportFormat; csvFlavour: CsvFlavour };
  expires: number;
  /** The console token it was given under, as a hash: a ticket dies with its token. */
  token: string;
}

/**
 * A download's header naming its file: a header carries Latin-1 only, so a name with other
 * letters (a client named in Greek, in Japanese) goes whole in `filename*` (RFC 6266), with a
 * fallback of its ASCII letters for the few clients that read only `filename`.
 */
function attachment(fileName: string): string {
  const ascii = fileName.normalize('NFD').replace(/\p{M}/gu, '').replace(/[^\x20-\x7e]|["\\]/g, '_');
  if (ascii === fileName) return `attachment; filename="${fileName}"`;
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

const hashed = (token: string): string => createHash('sha256').update(token).digest('base64url');

/**
 * Browser mode's exports: a download is a page navigation, which sends no header, so the page
 * first asks (with the console token) for a single-use address valid for a minute, then opens
 * it. The page exports by a job (`exports.start`) and downloads its finished file; a script may
 * ask for the client's POIs as they are now, streamed as they are read.
 */
export function mountDownloadRoutes(app: FastifyInstance, options: DownloadRouteOptions): void {
  const tickets = new Map<string, Ticket>();

  app.post('/console/downloads', (req, reply) => {
    if (!authorized(req, options.token())) return refuse(reply);
    const body = (req.body as { json?: unknown } | undefined)?.json;
    try {
      const what = asked(body);
      // Asked now, so that a job with no file to fetch is refused before the page navigates.
      if ('jobId' in what) options.exportFile(what.jobId);
      const now = Date.now();
      for (const [key, t] of tickets) if (t.expires <= now) tickets.delete(key);
      if (tickets.size >= MAX_TICKETS) throw new ServiceError('TOO_MANY_REQUESTS', 'too many downloads are waiting to be opened');
      const ticket = randomBytes(24).toString('base64url');
      tickets.set(ticket, { what, expires: now + TICKET_MS, token: hashed(options.token()) });
      return reply.send({ ok: true, value: { url: `/console/downloads/${ticket}` } } satisfies Answer<{ url: string }>);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      const body = error.toBody();
      return reply.code(body.code).send({ ok: false, error: body } satisfies Answer<never>);
    }
  });

  app.get<{ Params: { ticket: string } }>('/console/downloads/:ticket', async (req, reply) => {
    const ticket = tickets.get(req.params.ticket);
    tickets.delete(req.params.ticket);
    if (!ticket || ticket.expires <= Date.now()) throw new ServiceError('NOT_FOUND', 'this download address is used or expired: export again');
    // A token rotated (because it leaked, say) takes the addresses it gave with it.
    if (ticket.token !== hashed(options.token())) throw new ServiceError('NOT_FOUND', 'this download address was given under a console token that has changed since: export again');
    const what = ticket.what;
    if ('jobId' in what) {
      const { file, format, fileName } = options.exportFile(what.jobId);
      return reply.type(FILE_FORMATS[format].mime).header('content-disposition', attachment(fileName)).header('cache-control', 'no-store').send(createReadStream(file));
    }
    // Started before the headers go: an unknown client is a plain 404, not a broken download.
    const stream = await exportStream(options.exportPois(what.clientId, what.format, { csvFlavour: what.csvFlavour }));
    const fileName = poisFileName(what.format, options.requireClient(what.clientId).name, Date.now());
    return reply
      .type(FILE_FORMATS[what.format].mime)
      .header('content-disposition', attachment(fileName))
      .header('cache-control', 'no-store')
      .send(stream);
  });
}
