import { BRIDGE_GLOBAL, type Answer, type ConsoleBridge, type Input, type OpName, type Output } from '../../shared/contract';
import type { ErrorBody } from '../../shared/errors';

declare global {
  interface Window {
    [BRIDGE_GLOBAL]?: ConsoleBridge;
  }
}

/** Browser mode: the same operations over HTTP, authorized by the console cookie. */
const httpBridge: ConsoleBridge = {
  async invoke<K extends OpName>(op: K, input: Input<K>): Promise<Answer<Output<K>>> {
    const response = await fetch(`/console/api/${encodeURIComponent(op)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input),
      credentials: 'same-origin',
    });
    return (await response.json()) as Answer<Output<K>>;
  },
};

/** In Electron the preload exposes the bridge; in a browser we talk HTTP to the same core. */
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
