import { useOperation } from '../operation';
import { listenerKeys } from './queries';

export const useConfigureListener = () => useOperation('listener.configure', () => [listenerKeys.status], ['enabled', 'port', 'scope', 'corsOrigins', 'httpsPort', 'faults']);
export const useRotateAuthority = () => useOperation('listener.rotateAuthority', () => [listenerKeys.status], []);
