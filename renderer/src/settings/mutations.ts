import { useOperation } from '../operation';
import { settingsKeys } from './queries';

export const useSaveSettings = () =>
  useOperation('settings.set', () => [settingsKeys.all, settingsKeys.tileCache], ['tileUrl', 'tileAttribution', 'tileAttributionUrl', 'tileCacheMb']);

export const useClearTileCache = () => useOperation('tiles.clearCache', () => [settingsKeys.tileCache]);
