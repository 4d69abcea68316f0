import { createCore } from '../core/service.js';
import { print, run } from './console-call.js';
import type { CliOptions } from './commands.js';
import { databasePath } from './options.js';

/**
 * `undo change SEQ --client ID` (a POI's or a report's change, by its seq in the POI's history)
 * and `undo import IMPORT_ID --client ID` (the `importId` of an import's report): what the
 * Activity panel's Undo does, refused the same way when what it wrote was changed since.
 */
export async function runUndoCommand(sub: string | undefined, args: string[], options: CliOptions): Promise<number> {
  const [what] = args;
  if (!options.client) throw new Error('undo needs --client CLIENT_ID');
  if (what === undefined || (sub !== 'change' && sub !== 'import')) throw new Error('use: undo change SEQ --client ID, or undo import IMPORT_ID --client ID');
  const core = createCore({ file: databasePath(options).file });
  try {
    if (sub === 'import') {
      // A job, as in the app; the CLI waits for its end and prints its reply.
      const job = await core.jobs.whenDone((await run(core, 'imports.undo', { clientId: options.client, importId: what })).id);
      if (job.state !== 'done' || job.report === null) throw new Error(job.error ?? `the undo ended ${job.state}`);
      print(job.report);
    }
    else print(await run(core, 'changes.undo', { clientId: options.client, seq: Number(what) }));
    return 0;
  } finally {
    core.close();
  }
}
