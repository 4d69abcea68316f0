import { useOperation } from '../operation';
import { backupsKeys } from './queries';

export const useCreateBackup = () => useOperation('backups.create', () => [backupsKeys.all]);

/** A restore replaces every piece of data: every query is read again (the empty key matches them all). */
export const useRestoreBackup = () => useOperation('backups.restore', () => [[]]);

export const useRemoveBackup = () => useOperation('backups.remove', () => [backupsKeys.all]);

export const useConfigureBackups = () => useOperation('backups.configure', () => [backupsKeys.all], ['keepDaily']);
