import { BrowserWindow, dialog } from 'electron';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { operations, type Answer } from '../../shared/contract.js';
import { ServiceError, validate } from '../core/errors.js';
import { exportStream } from '../core/exports/poi-export.js';
import type { Core } from '../core/service.js';

/** `pois.exportDialog`: the system's save dialog, then the export streamed to the chosen file. */
export async function exportToDialog(core: Core, input: unknown): Promise<Answer<{ file: string } | null>> {
  try {
    const { clientId, format } = validate<{ clientId: string; format: 'geojson' | 'csv' }>(operations['pois.exportDialog'], input);
    // Started before the dialog: an unknown client is refused before anyone picks a file.
    const stream = await exportStream(core.exportPois(clientId, format));
    const window = BrowserWindow.getFocusedWindow();
    const options = { title: 'Export POIs', defaultPath: `pois.${format}`, filters: [{ name: format === 'csv' ? 'CSV' : 'GeoJSON', extensions: [format] }] };
    const picked = window ? await dialog.showSaveDialog(window, options) : await dialog.showSaveDialog(options);
    if (picked.canceled || !picked.filePath) {
      stream.destroy();
      return { ok: true, value: null };
    }
    await pipeline(stream, createWriteStream(picked.filePath));
    return { ok: true, value: { file: picked.filePath } };
  } catch (error) {
    if (error instanceof ServiceError) return { ok: false, error: error.toBody() };
    throw error;
  }
}
