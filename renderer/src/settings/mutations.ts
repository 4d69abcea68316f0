import { useOperation } from '../operation';
import { settingsKeys } from './queries';

export const useSaveSettings = () => useOperation('settings.set', () => [settingsKeys.all], ['tileUrl', 'tileAttribution', 'tileAttributionUrl']);
