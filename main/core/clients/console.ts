import type { CoreOp, Handlers } from '../console/handlers.js';
import type { Services } from '../services.js';

/** Client applications: the operator creates them, switches Implicit Flow, rotates the administrator token. */
export function clientsConsole(core: Services): Handlers<Extract<CoreOp, `clients.${string}`>> {
  return {
    'clients.list': () => core.clients.list(),
    'clients.create': (i) => core.clients.create({ name: i.name, implicitFlow: i.implicitFlow ?? false }),
    'clients.setImplicitFlow': (i) => core.clients.setImplicitFlow(i.clientId, i.enabled),
    'clients.rotateToken': (i) => ({ client_id: core.clients.requireId(i.clientId), admin_token: core.clients.rotateAdminToken(i.clientId) }),
  };
}
