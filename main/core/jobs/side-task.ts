import type { SideReply } from './side-process.js';
import { sideTasks, type SideTaskName } from './side-tasks.js';

/**
 * The entry of a side process (side-process.ts): one task, asked by message, answered by
 * message; the app kills the process once it has the answer, or when it is late.
 */
interface Asked {
  name: SideTaskName;
  input: never;
  nativeBinding: string | undefined;
}

process.once('message', (asked: Asked) => {
  const task = sideTasks[asked.name] as (input: never, nativeBinding: string | undefined) => Promise<unknown>;
  task(asked.input, asked.nativeBinding).then(
    (value) => process.send?.({ ok: true, value } satisfies SideReply<unknown>),
    (error: unknown) => process.send?.({ ok: false, message: error instanceof Error ? error.message : String(error) } satisfies SideReply<unknown>),
  );
});
