import type { CoreOp, Handlers } from '../console/handlers.js';
import { OK_BODY } from '../../../shared/errors.js';
import type { Services } from '../services.js';

/** Categories of any client application, as its operator sees them. */
export function categoriesConsole(core: Services): Handlers<Extract<CoreOp, `categories.${string}`>> {
  return {
    'categories.list': (i) => core.categories.list(core.clients.requireId(i.clientId), true),
    'categories.add': (i) => core.categories.add(core.clients.requireId(i.clientId), { desc: i.desc }),
    'categories.update': (i) => core.categories.update(core.clients.requireId(i.clientId), i.category, { desc: i.desc }),
    'categories.delete': (i) => {
      core.categories.remove(core.clients.requireId(i.clientId), i.category);
      return OK_BODY;
    },
  };
}
