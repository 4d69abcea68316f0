import { ipcMain, type IpcMainInvokeEvent } from 'electron';
import { IPC_CHANNEL, isShellOp, type Answer, type ShellOp } from '../../shared/contract.js';
import { errorBody } from '../../shared/errors.js';
import { isOwn } from './security.js';

/**
 * The shell's answers to its operations (SHELL_OPS in shared/contract.ts): links opened and the
 * system's file dialogs. `activated`: whether a user activation was behind the call (added by
 * the preload, never by the page), which only a link's opening asks about.
 */
export type ShellHandlers = { [K in ShellOp]: (input: unknown, activated: boolean) => Answer<unknown> | Promise<Answer<unknown>> };

/**
 * The one IPC channel: `invoke(op, input)` from the app's own pages only. Input is validated by
 * the contract's schema inside `invoke` before the core sees it; the shell's operations are
 * answered here, by the shell.
 */
export function handleConsoleIpc(invoke: (op: string, input: unknown) => Promise<Answer<unknown>>, shell: ShellHandlers): void {
  ipcMain.handle(IPC_CHANNEL, async (event: IpcMainInvokeEvent, op: unknown, input: unknown, activated: unknown): Promise<Answer<unknown>> => {
    const frameUrl = event.senderFrame?.url ?? '';
    if (!isOwn(frameUrl)) {
      return { ok: false, error: errorBody('FORBIDDEN', 'IPC from a page that is not the app') };
    }
    if (typeof op !== 'string') return { ok: false, error: errorBody('MALFORMED_REQUEST', 'operation name must be a string') };
    if (isShellOp(op)) return shell[op](input, activated === true);
    return invoke(op, input);
  });
}
