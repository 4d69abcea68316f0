import { errorBody } from '../../../shared/errors.js';
import { isOpName, operations, type Answer, type OpName } from '../../../shared/contract.js';
import { fromZod, ServiceError, storageError } from '../errors.js';
import type { Handlers } from './handlers.js';

/**
 * The one entry of console operations into the main process, whatever the transport: checks
 * the operation name, validates the input with the contract's schema, runs the handler, and
 * answers `{ok, value}` or `{ok: false, error}` with an error of the catalog. `onBug` hears of
 * anything that is not a ServiceError. `handlers` may be a part of the operations (the CLI runs
 * the core's alone): one it lacks is not found.
 */
export async function dispatch(
  handlers: Partial<Handlers<OpName>>,
  op: string,
  input: unknown,
  onBug: (error: unknown) => void = () => undefined,
): Promise<Answer<unknown>> {
  if (!isOpName(op)) return { ok: false, error: errorBody('NOT_FOUND', `no console operation ${op}`) };
  const parsed = operations[op].safeParse(input ?? {});
  if (!parsed.success) return { ok: false, error: fromZod(parsed.error, input ?? {}).toBody() };
  // The map is typed per operation; here the operation is only known at run time.
  const handler = handlers[op] as ((valid: unknown) => unknown) | undefined;
  if (!handler) return { ok: false, error: errorBody('NOT_FOUND', `no console operation ${op} here`) };
  try {
    return { ok: true, value: await handler(parsed.data) };
  } catch (error) {
    if (error instanceof ServiceError) return { ok: false, error: error.toBody() };
    const storage = storageError(error);
    onBug(error);
    if (storage) return { ok: false, error: storage.toBody() };
    return { ok: false, error: errorBody('INTERNAL', 'unexpected error; it has been logged') };
  }
}
