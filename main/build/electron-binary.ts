import { createRequire } from 'node:module';

/**
 * The Electron binary's path where one is installed. `electron` is an optional dependency whose
 * install script downloads the binary; without internet the package is absent, or present with
 * no binary (its index then throws): both mean "none".
 */
export function electronBinary(): string | undefined {
  try {
    const path: unknown = createRequire(import.meta.url)('electron');
    return typeof path === 'string' ? path : undefined;
  } catch {
    return undefined;
  }
}
