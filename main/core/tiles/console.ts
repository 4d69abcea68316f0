import type { CoreOp, Handlers } from '../console/handlers.js';
import type { Services } from '../services.js';

/** The online tiles kept for offline use: what is kept, and emptying it. */
export function tilesConsole(core: Services): Handlers<Extract<CoreOp, `tiles.${string}`>> {
  return {
    'tiles.cacheStatus': () => core.onlineTiles.status(),
    'tiles.clearCache': () => core.onlineTiles.clear(),
  };
}
