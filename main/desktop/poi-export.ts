import { BrowserWindow, dialog } from 'electron';
import { operations, type Answer } from '../../shared/contract.js';
import { poisFileName, FILE_FORMATS, type CsvFlavour, type ExportFormat } from '../../shared/file-formats.js';
import type { ExportJob } from '../../shared/jobs.js';
import { ServiceError, validate } from '../core/errors.js';
import type { Core } from '../core/service.js';

/**
 * `pois.exportDialog`: the system's save dialog, then the export (in the flavour asked, for a
 * CSV) as a job that writes the chosen file once complete; the answer is the job, followed with
 * `jobs.get`, or null when the dialog is cancelled.
 */
export async function exportToDialog(core: Core, input: unknown): Promise<Answer<ExportJob | null>> {
  try {
    const { clientId, format, csvFlavour } = validate<{ clientId: string; format: ExportFormat; csvFlavour: CsvFlavour }>(operations['pois.exportDialog'], input);
    // Before the dialog: an unknown client is refused before anyone picks a file.
    const client = core.requireClient(clientId);
    const window = BrowserWindow.getFocusedWindow();
    const { label, extensions } = FILE_FORMATS[format];
    const options = { title: 'Export POIs', defaultPath: poisFileName(format, client.name, Date.now()), filters: [{ name: label, extensions: [...extensions] }] };
    const picked = window ? await dialog.showSaveDialog(window, options) : await dialog.showSaveDialog(options);
    if (picked.canceled || !picked.filePath) return { ok: true, value: null };
    return { ok: true, value: core.startExport(clientId, format, { csvFlavour }, picked.filePath) };
  } catch (error) {
    if (error instanceof ServiceError) return { ok: false, error: error.toBody() };
    throw error;
  }
}
