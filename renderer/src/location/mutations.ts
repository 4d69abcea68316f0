import { useOperation } from '../operation';
import { locationKeys } from './queries';

export const useConfigureLocation = () => useOperation('location.configure', () => [locationKeys.status], ['source', 'host', 'port', 'wantAccuracyM']);
