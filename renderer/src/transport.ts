import { BRIDGE_GLOBAL, type Answer, type ConsoleBridge, type Input, type OpName, type Output } from '../../shared/contract';
import type { ErrorBody } from '../../shared/errors';
import { consoleToken, tokenRefused } from './consoleToken';

declare global {
  interface Window {
    [BRIDGE_GLOBAL]?: ConsoleBridge;
  }
}

const post = (op: string, input: unknown, token: string): Promise<Response> =>
  fetch(`/console/api/${encodeURIComponent(op)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
    credentials: 'omit',
  });

/** The console's own refusal of its token (an operation's 401, such as a wrong password, has no challenge). */
const tokenRefusal = (response: Response): boolean => response.status === 401 && response.headers.has('www-authenticate');

/** Whether the console accepts `token` (the token dialog checks before it lets the requests go). */
export const consoleAccepts = async (token: string): Promise<boolean> => !tokenRefusal(await post('listener.status', {}, token));

/**
 * Browser mode: the same operations over HTTP, with the console token in a header. A request
 * the console refuses for its token waits for a new one and is sent again: a form being saved
 * when the token was rotated keeps what was typed, and saves once the new token is given.
 */
const httpBridge: ConsoleBridge = {
  async invoke<K extends OpName>(op: K, input: Input<K>): Promise<Answer<Output<K>>> {
    for (;;) {
      const token = await consoleToken();
      const response = await post(op, input, token);
      if (!tokenRefusal(response)) return (await response.json()) as Answer<Output<K>>;
      tokenRefused(token);
    }
  },
};

/** In Electron the preload exposes the bridge; in a browser we talk HTTP to the same core. */
export const inBrowserMode = window[BRIDGE_GLOBAL] === undefined;
export const bridge: ConsoleBridge = window[BRIDGE_GLOBAL] ?? httpBridge;

/** A refusal from the main process, carrying the catalog error (and the field it concerns). */
export class ConsoleError extends Error {
  constructor(readonly body: ErrorBody) {
    super(body.message ?? body.description);
    this.name = 'ConsoleError';
  }
}

export async function call<K extends OpName>(op: K, input: Input<K>): Promise<Output<K>> {
  const answer = await bridge.invoke(op, input);
  if (!answer.ok) throw new ConsoleError(answer.error);
  return answer.value;
}
