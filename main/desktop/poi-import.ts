import { BrowserWindow, dialog } from 'electron';
import { operations, type Answer } from '../../shared/contract.js';
import { extensionNames, extensionsOf, formatNames, IMPORT_FORMATS, importFormatOf } from '../../shared/file-formats.js';
import type { JobView } from '../../shared/jobs.js';
import { basename } from 'node:path';
import { ServiceError, validate } from '../core/errors.js';
import type { Core } from '../core/service.js';

/**
 * `pois.importDialog`: the system's open dialog, then the chosen file imported by a job, as
 * browser mode's upload is (same rules, same report, read from where it is); the answer is the
 * job, followed with `jobs.get`, or null when the dialog is cancelled. The format is the file's
 * extension.
 */
export async function importToClient(core: Core, input: unknown): Promise<Answer<JobView | null>> {
  try {
    const { clientId, dryRun, createCategories, defaultCategory, addIdentical } = validate<{ clientId: string; dryRun: boolean; createCategories: boolean; defaultCategory?: string; addIdentical: boolean }>(
      operations['pois.importDialog'],
      input,
    );
    const window = BrowserWindow.getFocusedWindow();
    const options = { title: 'Import POIs', properties: ['openFile' as const], filters: [{ name: formatNames(IMPORT_FORMATS), extensions: extensionsOf(IMPORT_FORMATS) }] };
    const picked = window ? await dialog.showOpenDialog(window, options) : await dialog.showOpenDialog(options);
    const file = picked.filePaths[0];
    if (picked.canceled || !file) return { ok: true, value: null };
    const format = importFormatOf(file);
    // The dialog's filter can be turned off ("All files" on some systems).
    if (!format) throw new ServiceError('INVALID_PARAMETER', `${basename(file)} is not a ${formatNames(IMPORT_FORMATS)} file: choose a file whose name ends in ${extensionNames(IMPORT_FORMATS)}`, 'file');
    return { ok: true, value: core.startImport(clientId, { path: file, name: basename(file), temporary: false }, format, { dryRun, createCategories, defaultCategory, addIdentical }) };
  } catch (error) {
    if (error instanceof ServiceError) return { ok: false, error: error.toBody() };
    throw error;
  }
}
