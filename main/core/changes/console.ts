import type { CoreOp, Handlers } from '../console/handlers.js';
import type { Services } from '../services.js';
import { startUndoImport } from './undo-job.js';

/** The client's activity list, and undo of a change or of a whole import. */
export function changesConsole(core: Services): Handlers<Extract<CoreOp, `changes.${string}` | `imports.${string}`>> {
  return {
    'changes.activity': (i) => core.read(() => core.changes.activity(core.clients.requireId(i.clientId), i)),
    'changes.ofImport': (i) => core.read(() => core.changes.importChanges(core.clients.requireId(i.clientId), i)),
    'changes.undo': (i) => core.undo.change(core.clients.requireId(i.clientId), i.seq),
    'imports.undo': (i) => startUndoImport(core, core.clients.requireId(i.clientId), i.importId),
  };
}
