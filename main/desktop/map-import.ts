import { BrowserWindow, dialog } from 'electron';
import type { Answer } from '../../shared/contract.js';
import type { MapImportJob } from '../../shared/jobs.js';
import { ServiceError } from '../core/errors.js';
import type { Core } from '../core/service.js';

/** `maps.importDialog`: the system's open dialog, then the chosen file imported by a job (copied into the data folder), which the answer is. */
export async function importFromDialog(core: Core): Promise<Answer<MapImportJob | null>> {
  const window = BrowserWindow.getFocusedWindow();
  const options = {
    title: 'Import an offline map package',
    properties: ['openFile' as const],
    filters: [{ name: 'Map packages', extensions: ['mbtiles', 'pmtiles'] }, { name: 'All files', extensions: ['*'] }],
  };
  const picked = window ? await dialog.showOpenDialog(window, options) : await dialog.showOpenDialog(options);
  const [file] = picked.filePaths;
  if (picked.canceled || file === undefined) return { ok: true, value: null };
  try {
    return { ok: true, value: core.startMapImport({ path: file }) };
  } catch (error) {
    if (error instanceof ServiceError) return { ok: false, error: error.toBody() };
    throw error;
  }
}
