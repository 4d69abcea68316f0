import { useEffect, useState } from 'react';
import { DEFAULT_LOCATION, isReceiver, type Fix, type LocationSettings } from '../../../shared/location';
import { useLocationStatus } from './queries';

/** What "Add at my position" has to go on, whatever the source. */
export interface Position {
  settings: LocationSettings;
  /** The newest fix, if the source has one. */
  fix: Fix | null;
  /** Why there is none, in plain words (refused, not served over HTTPS, the receiver not answering); null while waiting. */
  problem: string | null;
  /** Who gives it, for the map's corner: "This device", "Receiver 192.168.1.20:10110". */
  from: string;
}

/** How long the platform may take for one position before it says so. */
const DEVICE_TIMEOUT_MS = 30_000;

/** The platform's words for GeolocationPositionError's codes, said as what to do. */
function deviceProblem(error: GeolocationPositionError): string {
  if (error.code === error.PERMISSION_DENIED) return 'The browser was not allowed to give this page the location: allow it in the site’s settings, then reload.';
  if (error.code === error.POSITION_UNAVAILABLE) return 'The device cannot find its position now (location off, or no signal).';
  return 'The device has given no position yet: still trying.';
}

/**
 * The platform's position while the device is the source: watched with enableHighAccuracy (the
 * GNSS, not only Wi-Fi), never a cached one. Browsers give none to a page not served over HTTPS
 * (or from this computer): that is said, not waited for.
 */
function useDeviceFix(on: boolean): { fix: Fix | null; problem: string | null } {
  const [state, setState] = useState<{ fix: Fix | null; problem: string | null }>({ fix: null, problem: null });
  useEffect(() => {
    if (!on) return;
    setState({ fix: null, problem: null });
    if (!window.isSecureContext || !('geolocation' in navigator)) {
      setState({ fix: null, problem: 'Browsers give the location only to pages served over HTTPS: open this page over HTTPS, or use a receiver.' });
      return;
    }
    const id = navigator.geolocation.watchPosition(
      (p) => {
        const c = p.coords;
        const fix: Fix = {
          lat: c.latitude,
          lng: c.longitude,
          accuracy: c.accuracy,
          at: p.timestamp,
          mode: c.altitude === null ? '2d' : '3d',
          ...(c.altitude !== null && { elevation: c.altitude }),
          ...(c.altitudeAccuracy !== null && { vaccuracy: c.altitudeAccuracy }),
        };
        setState({ fix, problem: null });
      },
      (error) => setState((s) => ({ fix: error.code === error.TIMEOUT ? s.fix : null, problem: deviceProblem(error) })),
      { enableHighAccuracy: true, maximumAge: 0, timeout: DEVICE_TIMEOUT_MS },
    );
    return () => navigator.geolocation.clearWatch(id);
  }, [on]);
  return state;
}

/** The position from the source chosen in Settings (shared/location.ts). */
export function usePosition(): Position {
  const status = useLocationStatus();
  const settings = status.data?.settings ?? DEFAULT_LOCATION;
  const device = useDeviceFix(settings.source === 'device');
  if (settings.source === 'device') return { settings, ...device, from: 'This device' };
  if (isReceiver(settings.source)) {
    const r = status.data?.receiver;
    const from = `${settings.source === 'gpsd' ? 'gpsd' : 'Receiver'} ${r?.address ?? settings.host}`;
    if (status.isError) return { settings, fix: null, problem: `The app did not answer: ${status.error.message}`, from };
    return { settings, fix: r?.fix ?? null, problem: r && !r.connected ? r.problem : null, from };
  }
  return { settings, fix: null, problem: null, from: '' };
}
