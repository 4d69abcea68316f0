import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import type { MapPackage } from '../../../../shared/maps';
import { useOperation } from '../../operation';
import { ConsoleError, inBrowserMode, uploadMapPackage } from '../../transport';
import { mapPackageKeys } from './queries';

export const useRemovePackage = () => useOperation('maps.remove', () => [mapPackageKeys.list]);

/** Electron: the system's file dialog, then the import (the shell answers). */
export const useImportDialog = () => useOperation('maps.importDialog', () => [mapPackageKeys.list]);

export interface Upload {
  file: string;
  /** 0..1 of the file sent; the import itself follows, quickly. */
  progress: number;
}

/**
 * Browser mode: sends a file to the console, which imports it; with its progress, a cancel, and
 * the refusal in words (a broken file is refused whole: nothing of it is kept).
 */
export function useUploadPackage(onImported: (pkg: MapPackage) => void) {
  const queryClient = useQueryClient();
  const [upload, setUpload] = useState<Upload | undefined>();
  const [error, setError] = useState<string | undefined>();
  const controller = useRef<AbortController | undefined>(undefined);

  const start = async (file: File): Promise<void> => {
    if (!inBrowserMode) return;
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    setError(undefined);
    setUpload({ file: file.name, progress: 0 });
    try {
      const answer = await uploadMapPackage(file, (progress) => setUpload({ file: file.name, progress }), abort.signal);
      if (answer.ok) onImported(answer.value);
      else setError(new ConsoleError(answer.error).message);
    } catch (e) {
      if (!(e instanceof DOMException && e.name === 'AbortError')) setError(e instanceof Error ? e.message : String(e));
    } finally {
      if (controller.current === abort) {
        controller.current = undefined;
        setUpload(undefined);
      }
      await queryClient.invalidateQueries({ queryKey: mapPackageKeys.list });
    }
  };
  const cancel = (): void => controller.current?.abort();
  return { upload, error, start, cancel, dismiss: () => setError(undefined) };
}
