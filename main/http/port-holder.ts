import { get } from 'node:http';

/** How long a port's holder has to answer the probe; a holder that does not is "another program". */
const PROBE_TIMEOUT_MS = 500;
/** This service's error replies are a few hundred bytes. */
const MAX_REPLY = 4096;

/**
 * Who holds a port this app could not listen on, in words for the person who chose it: this
 * app's own admin console (browser mode), another copy of the app (a `cli serve` beside the
 * desktop app, say), or another program. (This app's own listener never is: it steps aside.)
 */
export async function portHolder(port: number, consolePort: number | undefined): Promise<string> {
  if (port === consolePort) return "this app's admin console";
  return (await answersAsThisService(port)) ? 'another copy of this app (cli serve?)' : 'another program';
}

/**
 * Asks the port what this service answers without a token: its JSON error `{code, description:
 * "EXCEPTION_..."}` with `code` the HTTP status (401 from an API listener, 404 from a console).
 * node:http rather than fetch, so that a holder that never answers has its socket closed.
 */
function answersAsThisService(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: '/1/users/me/show.json', agent: false, timeout: PROBE_TIMEOUT_MS }, (reply) => {
      let text = '';
      reply.setEncoding('utf8');
      reply.on('data', (chunk: string) => {
        text += chunk;
        if (text.length > MAX_REPLY) request.destroy();
      });
      reply.on('end', () => resolve(isServiceError(reply.statusCode, text)));
      reply.on('error', () => resolve(false));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
    request.on('close', () => resolve(false));
  });
}

function isServiceError(status: number | undefined, text: string): boolean {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return false;
  }
  return (
    typeof body === 'object' &&
    body !== null &&
    'code' in body &&
    'description' in body &&
    body.code === status &&
    typeof body.description === 'string' &&
    body.description.startsWith('EXCEPTION_')
  );
}
