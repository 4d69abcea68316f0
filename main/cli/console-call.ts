import type { Input, OpName, Output } from '../../shared/contract.js';
import { dispatch } from '../core/console/dispatch.js';
import type { Core } from '../core/service.js';

/** One console operation; a refusal becomes the command's error message. */
export async function run<K extends OpName>(core: Core, op: K, input: Input<K>): Promise<Output<K>> {
  const answer = await dispatch(core.console, op, input);
  if (!answer.ok) throw new Error(`${answer.error.message ?? answer.error.description}${answer.error.parameter ? ` (${answer.error.parameter})` : ''}`);
  // The dispatcher answers the operation's own output (shared/contract.ts), checked by its handler's type.
  return answer.value as Output<K>;
}

/** Answers as JSON on stdout, so that scripts can read them. */
export function print(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}
