import { app, BrowserWindow, dialog, session } from 'electron';
import { SyncAgent } from '../sync-client/agent.js';
import { join } from 'node:path';
import { tileImageSource } from '../../shared/tiles.js';
import { createInvoke } from '../app/console.js';
import { desktopListener } from '../app/desktop-listener.js';
import { startHost, type RunningHost } from '../app/host.js';
import { hostLogger } from '../app/host-log.js';
import { createCore, type Core } from '../core/service.js';
import { bindingOption } from '../core/store/database-file.js';
import { defaultDataDir, prepareDataDir } from '../data-dir.js';
import { handleConsoleIpc } from './ipc.js';
import { importFromDialog } from './map-import.js';
import { exportToDialog } from './poi-export.js';
import { importToClient } from './poi-import.js';
import { electronNativeBinding, NATIVE_HELP } from './native.js';
import { registerScheme, serveRenderer } from './protocol.js';
import { utilityLauncher } from './side-launcher.js';
import { APP_ORIGIN, denyPermissions, hardenApp, openExternalLink } from './security.js';

/** The desktop shell: one window over the core, the admin UI over IPC, the API listener as configured. */
let running: RunningHost | undefined;

registerScheme();
hardenApp();
// A second launch only focuses the first: it must not open the database or the listener.
if (!app.requestSingleInstanceLock()) {
  app.quit();
  process.exit(0);
}

function openCore(): Core | undefined {
  const file = prepareDataDir(defaultDataDir());
  const nativeBinding = electronNativeBinding(app.getAppPath(), app.isPackaged);
  try {
    return createCore({ file, sideLauncher: utilityLauncher, ...bindingOption(nativeBinding) });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const native = /NODE_MODULE_VERSION|was compiled against a different Node\.js version|invalid ELF header|better_sqlite3\.node/.test(message);
    dialog.showErrorBox('POI Membership Admin cannot open its database', native ? `${NATIVE_HELP}\n\n${message}` : message);
    return undefined;
  }
}

function createWindow(): void {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    title: 'POI Membership Admin',
    show: false,
    webPreferences: {
      preload: join(import.meta.dirname, 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  window.once('ready-to-show', () => window.show());
  void window.loadURL(`${APP_ORIGIN}/index.html`);
}

app.whenReady().then(async () => {
  const opened = openCore();
  if (!opened) {
    app.quit();
    return;
  }
  denyPermissions(session.defaultSession);
  serveRenderer(
    join(app.getAppPath(), 'dist', 'renderer'),
    () => {
      const source = tileImageSource(opened.settings.map().tileUrl);
      return source ? [source] : [];
    },
    (id, z, x, y) => opened.maps.tile(id, z, x, y),
    (z, x, y) => opened.onlineTiles.tile(z, x, y),
  );
  // A file in the data folder: the desktop app has no terminal to write to.
  const logger = hostLogger({ file: join(defaultDataDir(), 'logs', 'main.log') });
  const listener = desktopListener(opened, defaultDataDir());
  const sync = new SyncAgent(opened.syncSide, defaultDataDir(), { auto: true });
  handleConsoleIpc(createInvoke(opened, listener, (e) => logger.error({ err: e }, 'a console operation failed'), sync), {
    'app.openExternal': (input, activated) => openExternalLink(input, activated),
    'maps.importDialog': () => importFromDialog(opened),
    'pois.exportDialog': (input) => exportToDialog(opened, input),
    'pois.importDialog': (input) => importToClient(opened, input),
  });
  // The one lifecycle (app/host.ts): warmed up before the listener and the window open.
  running = await startHost({
    core: opened,
    logger,
    sampleMap: true,
    sync,
    open: async () => {
      await listener.restore();
      createWindow();
    },
    close: () => listener.stop(),
  });
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
}, (error: unknown) => {
  console.error(error);
  app.quit();
});

app.on('second-instance', () => BrowserWindow.getAllWindows()[0]?.focus());
app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
app.on('will-quit', (event) => {
  const host = running;
  if (!host) return;
  // Stopped in the host's order (sync, backups, listener, then the database), then quit for real.
  event.preventDefault();
  running = undefined;
  void host.stop().finally(() => app.quit());
});
