// A sandboxed preload: CommonJS, and only `electron` may be required. It exposes one narrow
// object, never ipcRenderer itself.
import electron = require('electron');
import type { ConsoleBridge } from '../../shared/contract.js';

// Written out rather than imported: a sandboxed preload cannot load our modules at run time.
const BRIDGE_GLOBAL = 'poiConsole';
const IPC_CHANNEL = 'console:invoke';

const bridge = {
  invoke: (op, input) => electron.ipcRenderer.invoke(IPC_CHANNEL, op, input),
} satisfies ConsoleBridge;

electron.contextBridge.exposeInMainWorld(BRIDGE_GLOBAL, bridge);
