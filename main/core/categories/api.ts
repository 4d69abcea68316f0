import type { ApiName } from '../../../shared/api/operations.js';
import type { ApiHandlers, ApiParts } from '../api/handlers.js';
import { OK_BODY } from '../../../shared/errors.js';
import { actorOf } from '../tokens/tokens.js';

/** Categories: any token lists them; the client's administrator adds, renames and deletes its own. */
export function categoriesApi(c: ApiParts): Pick<ApiHandlers, Extract<ApiName, `categories.${string}`>> {
  return {
    'categories.list': ({ principal }, input) => c.categories.list(principal.clientId, input.include_system_categories === true),
    'categories.add': ({ principal }, { desc }) => c.categories.add(principal.clientId, { desc }, actorOf(principal)),
    'categories.update': ({ principal }, { category, desc }) => c.categories.update(principal.clientId, category, { desc }, actorOf(principal)),
    'categories.delete': ({ principal }, { category }) => {
      c.categories.remove(principal.clientId, category, actorOf(principal));
      return OK_BODY;
    },
  };
}
