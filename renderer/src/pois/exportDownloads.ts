import { fetchJob } from '../jobs/queries';
import { downloadExport, inBrowserMode } from '../transport';

/**
 * The export job each client shows, and browser mode's downloads of finished exports, kept
 * beside the page's components: a panel closed while its export runs (a search result opened,
 * another client chosen) neither loses the job nor its download.
 */
const shown = new Map<string, string>();
const failed = new Map<string, string>();
const listeners = new Set<() => void>();
const notify = (): void => listeners.forEach((listener) => listener());

/** How often a running export is asked about, to download it once done. */
const POLL_MS = 300;

export const subscribeExports = (listener: () => void): (() => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};
export const shownExport = (clientId: string): string | undefined => shown.get(clientId);
/** Why the download of a finished export could not start, if it could not. */
export const downloadFailure = (jobId: string | undefined): string | undefined => (jobId === undefined ? undefined : failed.get(jobId));

/** The browser saves a finished export's file; a refusal is kept to be shown where the export is. */
export async function download(jobId: string): Promise<void> {
  try {
    failed.delete(jobId);
    await downloadExport(jobId);
  } catch (e) {
    failed.set(jobId, e instanceof Error ? e.message : String(e));
  }
  notify();
}

async function downloadWhenDone(jobId: string): Promise<void> {
  for (;;) {
    let state: string;
    try {
      state = (await fetchJob(jobId)).state;
    } catch (e) {
      failed.set(jobId, e instanceof Error ? e.message : String(e));
      notify();
      return;
    }
    if (state === 'done') return download(jobId);
    if (state !== 'running') return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** An export just started for a client: shown there from now on, and (browser mode) downloaded once done. */
export function followExport(clientId: string, jobId: string): void {
  shown.set(clientId, jobId);
  notify();
  if (inBrowserMode) void downloadWhenDone(jobId);
}
