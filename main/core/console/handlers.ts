import type { HostOp, OpName, Output, ValidInput } from '../../../shared/contract.js';
import { backupsConsole } from '../backups/console.js';
import { categoriesConsole } from '../categories/console.js';
import { changesConsole } from '../changes/console.js';
import { clientsConsole } from '../clients/console.js';
import { jobsConsole } from '../jobs/console.js';
import { locationConsole } from '../location/console.js';
import { exportsConsole } from '../exports/console.js';
import { mapsConsole } from '../maps/console.js';
import { membersConsole } from '../members/console.js';
import { placesConsole } from '../places/console.js';
import { poisConsole } from '../pois/console.js';
import type { Services } from '../services.js';
import { settingsConsole } from '../settings/console.js';
import { tilesConsole } from '../tiles/console.js';
import { warningsConsole } from '../warnings/console.js';

export type Handler<K extends OpName> = (input: ValidInput<K>) => Output<K> | Promise<Output<K>>;
export type Handlers<K extends OpName> = { [P in K]: Handler<P> };

/**
 * The listener is not the core's: its two operations are handled where the listener lives; nor
 * are opening a link and the file dialog, which only the desktop shell has.
 */
export type CoreOp = Exclude<OpName, HostOp>;

/**
 * The console's operations over the core, each in its feature's folder: the operator of this
 * computer acting on any client application, without client tokens. Inputs arrive validated by
 * the contract's schemas.
 */
export function consoleHandlers(core: Services): Handlers<CoreOp> {
  return {
    ...clientsConsole(core),
    ...categoriesConsole(core),
    ...poisConsole(core),
    ...placesConsole(),
    ...mapsConsole(core),
    ...warningsConsole(core),
    ...changesConsole(core),
    ...membersConsole(core),
    ...settingsConsole(core),
    ...locationConsole(core),
    ...tilesConsole(core),
    ...backupsConsole(core),
    ...jobsConsole(core),
    ...exportsConsole(core),
  };
}
