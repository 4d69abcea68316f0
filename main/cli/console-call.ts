import type { Input, OpName } from '../../shared/contract.js';
import { dispatch } from '../core/console/dispatch.js';
import type { Core } from '../core/service.js';

/** One console operation; a refusal becomes the command's error message. */
export async function run<K extends OpName>(core: Core, op: K, input: Input<K>): Promise<unknown> {
  const answer = await dispatch(core.console, op, input);
  if (!answer.ok) throw new Error(`${answer.error.message ?? answer.error.description}${answer.error.parameter ? ` (${answer.error.parameter})` : ''}`);
  return answer.value;
}

/** Answers as JSON on stdout, so that scripts can read them. */
export function print(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}
