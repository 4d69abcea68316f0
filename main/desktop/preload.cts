// A sandboxed preload: CommonJS, and only `electron` may be required. It exposes one narrow
// object, never ipcRenderer itself.
import electron = require('electron');
import type { ConsoleBridge } from '../../shared/contract.js';

// Written out rather than imported: a sandboxed preload cannot load our modules at run time.
const BRIDGE_GLOBAL = 'poiConsole';
const IPC_CHANNEL = 'console:invoke';

/**
 * Whether a click or key press of the person is behind this call. Read here, in the preload's
 * isolated world, from the frame's user activation, which the page's scripts cannot forge; main
 * opens a link only when it is true.
 */
const userActivated = (): boolean =>
  (globalThis as { navigator?: { userActivation?: { isActive: boolean } } }).navigator?.userActivation?.isActive === true;

const bridge = {
  invoke: (op, input) => electron.ipcRenderer.invoke(IPC_CHANNEL, op, input, userActivated()),
} satisfies ConsoleBridge;

electron.contextBridge.exposeInMainWorld(BRIDGE_GLOBAL, bridge);
