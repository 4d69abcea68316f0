import type { CoreOp, Handlers } from '../console/handlers.js';
import type { Core } from '../service.js';

/** This installation's settings (the map's tile server). */
export function settingsConsole(core: Core): Handlers<Extract<CoreOp, `settings.${string}`>> {
  return {
    'settings.get': () => core.settings.map(),
    'settings.set': (i) => core.settings.setMap(i),
  };
}
