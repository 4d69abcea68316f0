import { ipcMain, type IpcMainInvokeEvent } from 'electron';
import { IPC_CHANNEL, type Answer } from '../../shared/contract.js';
import { errorBody } from '../../shared/errors.js';
import { isOwn, openExternalLink } from './security.js';

/**
 * The one IPC channel: `invoke(op, input)` from the app's own pages only. Input is validated by
 * the contract's schema inside `invoke` before the core sees it. `app.openExternal` is answered
 * here, by the shell: it alone hears whether a user activation was behind the call (`activated`,
 * added by the preload, never by the page); so are `maps.importDialog`, `pois.exportDialog` and `pois.importDialog`, the system's file dialogs.
 */
export interface ShellDialogs {
  importMap: () => Promise<Answer<unknown>>;
  exportPois: (input: unknown) => Promise<Answer<unknown>>;
  importPois: (input: unknown) => Promise<Answer<unknown>>;
}

export function handleConsoleIpc(invoke: (op: string, input: unknown) => Promise<Answer<unknown>>, dialogs: ShellDialogs): void {
  ipcMain.handle(IPC_CHANNEL, async (event: IpcMainInvokeEvent, op: unknown, input: unknown, activated: unknown): Promise<Answer<unknown>> => {
    const frameUrl = event.senderFrame?.url ?? '';
    if (!isOwn(frameUrl)) {
      return { ok: false, error: errorBody('FORBIDDEN', 'IPC from a page that is not the app') };
    }
    if (typeof op !== 'string') return { ok: false, error: errorBody('MALFORMED_REQUEST', 'operation name must be a string') };
    if (op === 'app.openExternal') return openExternalLink(input, activated === true);
    if (op === 'maps.importDialog') return dialogs.importMap();
    if (op === 'pois.exportDialog') return dialogs.exportPois(input);
    if (op === 'pois.importDialog') return dialogs.importPois(input);
    return invoke(op, input);
  });
}
