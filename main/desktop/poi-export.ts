import { BrowserWindow, dialog } from 'electron';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { operations, type Answer } from '../../shared/contract.js';
import { exportFileName, FILE_FORMATS, type CsvFlavour, type ExportFormat } from '../../shared/file-formats.js';
import { ServiceError, validate } from '../core/errors.js';
import { exportStream } from '../core/exports/poi-export.js';
import type { Core } from '../core/service.js';

/** `pois.exportDialog`: the system's save dialog, then the export (in the flavour asked, for a CSV) streamed to the chosen file. */
export async function exportToDialog(core: Core, input: unknown): Promise<Answer<{ file: string } | null>> {
  try {
    const { clientId, format, csvFlavour } = validate<{ clientId: string; format: ExportFormat; csvFlavour: CsvFlavour }>(operations['pois.exportDialog'], input);
    // Started before the dialog: an unknown client is refused before anyone picks a file.
    const stream = await exportStream(core.exportPois(clientId, format, { csvFlavour }));
    const window = BrowserWindow.getFocusedWindow();
    const { label, extensions } = FILE_FORMATS[format];
    const options = { title: 'Export POIs', defaultPath: exportFileName(format), filters: [{ name: label, extensions: [...extensions] }] };
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
