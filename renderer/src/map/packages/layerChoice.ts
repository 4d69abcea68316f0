import { useSyncExternalStore } from 'react';

/**
 * Which layers the map draws, kept in this browser's local storage: the online tile server, the
 * bundled overview, and every package but those hidden (a package just imported shows at once).
 */
export interface LayerChoice {
  online: boolean;
  overview: boolean;
  hidden: string[];
}

const KEY = 'poi-admin.map-layers';
const DEFAULT: LayerChoice = { online: true, overview: true, hidden: [] };
const listeners = new Set<() => void>();
let current: LayerChoice = read();

function read(): LayerChoice {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(KEY) ?? 'null');
    if (typeof stored !== 'object' || stored === null) return DEFAULT;
    const s = stored as Partial<LayerChoice>;
    return {
      online: typeof s.online === 'boolean' ? s.online : true,
      overview: typeof s.overview === 'boolean' ? s.overview : true,
      hidden: Array.isArray(s.hidden) ? s.hidden.filter((id): id is string => typeof id === 'string') : [],
    };
  } catch {
    return DEFAULT;
  }
}

export function changeLayers(change: (c: LayerChoice) => LayerChoice): void {
  current = change(current);
  localStorage.setItem(KEY, JSON.stringify(current));
  listeners.forEach((l) => l());
}

export const showPackage = (id: string, shown: boolean): void =>
  changeLayers((c) => ({ ...c, hidden: shown ? c.hidden.filter((h) => h !== id) : [...new Set([...c.hidden, id])] }));

export const useLayerChoice = (): LayerChoice =>
  useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => current,
  );
