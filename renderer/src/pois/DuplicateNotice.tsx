import type { PossibleDuplicate } from '../../../shared/wire';
import { useDebounced } from '../ui/useDebounced';
import { useDuplicates, type DuplicateProbe } from './queries';

interface Props {
  clientId: string;
  /** The form's fields as typed (latitude and longitude as text). */
  name: string;
  lat: string;
  lng: string;
  /** The POI being edited, which is no duplicate of itself. */
  except?: number | undefined;
  onOpen: (poi: PossibleDuplicate) => void;
}

/** How long typing must pause before the server is asked. */
const PAUSE_MS = 400;
/** More than this many is a crowd of near-namesakes, not a notice: the nearest are shown. */
const SHOWN = 5;

/** The question for the server, or none while the name is empty or the position is not a number. */
function probeOf({ name, lat, lng, except }: Pick<Props, 'name' | 'lat' | 'lng' | 'except'>): DuplicateProbe | undefined {
  const at = { lat: Number(lat), lng: Number(lng) };
  if (name.trim() === '' || lat.trim() === '' || lng.trim() === '' || !Number.isFinite(at.lat) || !Number.isFinite(at.lng)) return undefined;
  return { ...at, name: name.slice(0, 255), ...(except !== undefined ? { except } : {}) };
}

/**
 * "Possible duplicate of …" under the name and position: POIs of the client within 50 m with a
 * similar name, each a button that opens it. Never blocks Save. The live region is always in the
 * page, so that a screen reader hears the notice when it appears.
 */
export function DuplicateNotice(props: Props) {
  const probe = useDebounced(probeOf(props), PAUSE_MS);
  const found = useDuplicates(props.clientId, probe);
  const shown = probe ? (found.data ?? []).slice(0, SHOWN) : [];
  return (
    <div className="duplicate-notice" role="status" aria-live="polite">
      {shown.length > 0 && (
        <ul>
          {shown.map((d) => (
            <li key={d.id}>
              Possible duplicate of{' '}
              <button type="button" className="link" onClick={() => props.onOpen(d)}>
                {d.name}
              </button>{' '}
              ({d.distance_m} m away)
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
