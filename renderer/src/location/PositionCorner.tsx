import { describeFix, fixShortfall } from '../../../shared/location';
import type { Position } from './useFix';
import { useNow } from './useNow';

/** What the position's source says, in a line: "This device: 3D fix, ±4.1 m", "Receiver 10.0.0.5:10110: no fix". */
export function positionLine(p: Position, now: number, wantAccuracyM = Number.POSITIVE_INFINITY): string {
  if (p.fix) {
    const short = fixShortfall(p.fix, wantAccuracyM, now);
    return `${p.from}: ${describeFix(p.fix)}${short.length > 0 ? ` (${short.map((s) => s.text).join(', ')})` : ''}`;
  }
  return p.problem ?? `${p.from}: no fix`;
}

/** The map's corner while a location source is chosen: its state, and Add at my position. */
export function PositionCorner({ position, onAdd }: { position: Position; onAdd: () => void }) {
  const now = useNow(1_000);
  if (position.settings === null || position.settings.source === 'none') return null;
  return (
    <div className="map-position" role="group" aria-label="My position">
      <p className="map-position-state" data-fix={position.fix ? position.fix.mode : 'none'}>
        {positionLine(position, now)}
      </p>
      <button type="button" onClick={onAdd} aria-keyshortcuts="P">
        Add at my position
      </button>
    </div>
  );
}
