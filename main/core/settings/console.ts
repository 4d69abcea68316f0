import type { CoreOp, Handlers } from '../console/handlers.js';
import type { Services } from '../services.js';

/** This installation's settings (the map's tile server). */
export function settingsConsole(core: Services): Handlers<Extract<CoreOp, `settings.${string}`>> {
  return {
    'settings.get': () => core.settings.map(),
    'settings.set': (i) => {
      const saved = core.settings.setMap(i);
      core.onlineTiles.applyLimit();
      return saved;
    },
  };
}
