import { OK_BODY } from '../../../shared/errors.js';
import type { BackupsView } from '../../../shared/backups.js';
import type { CoreOp, Handlers } from '../console/handlers.js';
import type { Services } from '../services.js';
import { startRestore } from './restore-job.js';

/** Backups by name from the list: the page never names a path on this computer. */
export function backupsConsole(core: Services): Handlers<Extract<CoreOp, `backups.${string}`>> {
  const view = (): BackupsView => ({ backups: core.backups.list(), keepDaily: core.settings.backups().keepDaily, folder: core.backups.folder ?? null });
  return {
    'backups.list': view,
    'backups.create': () => core.backups.create('manual'),
    'backups.restore': ({ name }) => startRestore(core, core.backups.pathOf(name)),
    'backups.remove': ({ name }) => {
      core.backups.remove(name);
      return OK_BODY;
    },
    'backups.configure': async (settings) => {
      core.settings.setBackups(settings);
      // A smaller number prunes now; turning them on takes the first one now.
      await core.backups.dailyIfDue();
      return view();
    },
  };
}
