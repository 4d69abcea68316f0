import { useOperation } from '../operation';
import { clientKeys } from './queries';

export const useCreateClient = () => useOperation('clients.create', () => [clientKeys.all], ['name', 'implicitFlow']);

export const useSetImplicitFlow = () => useOperation('clients.setImplicitFlow', () => [clientKeys.all]);

/** Nothing listed changes: only the token's hash, which is never shown. */
export const useRotateAdminToken = () => useOperation('clients.rotateToken', () => []);
