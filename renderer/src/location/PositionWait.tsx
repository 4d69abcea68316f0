import { useEffect, useRef } from 'react';
import { fixShortfall, formatMetres, SHORTFALLS, type Fix } from '../../../shared/location';
import type { Position } from './useFix';
import { positionLine } from './PositionCorner';
import { useNow } from './useNow';

interface Props {
  position: Position;
  /** Opens the add form at this fix. */
  onTake: (fix: Fix) => void;
  onCancel: () => void;
  onSettings: () => void;
}

/**
 * Add at my position, while the fix is not good enough to take without asking (older than a few
 * seconds, or worse than the accuracy asked for in Settings): what it lacks, live; the form opens
 * by itself once a good fix comes, or now with this one if the person takes it.
 */
export function PositionWait({ position, onTake, onCancel, onSettings }: Props) {
  const now = useNow(500);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  // A device standing still may have called back long ago: ask it for a fresh fix.
  const refresh = useRef(position.refresh);
  useEffect(() => refresh.current(), []);
  const { fix, settings } = position;
  const short = fix && settings ? fixShortfall(fix, settings.wantAccuracyM, now) : undefined;
  const good = fix !== null && short?.length === 0;
  const takeRef = useRef(onTake);
  takeRef.current = onTake;
  useEffect(() => {
    if (good && fix) takeRef.current(fix);
  }, [good, fix]);

  if (settings === null) return <section className="panel">Loading the location setting…</section>;
  if (settings.source === 'none') {
    return (
      <section className="panel" aria-labelledby="position-wait-title">
        <h2 id="position-wait-title" tabIndex={-1} ref={heading}>
          Add at my position
        </h2>
        <p>No location source is chosen. Choose this device’s location or a GNSS receiver in Settings, or click the map where the POI goes.</p>
        <div className="actions">
          <button type="button" onClick={onSettings}>
            Open Settings
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </section>
    );
  }
  return (
    <section className="panel" aria-labelledby="position-wait-title">
      <h2 id="position-wait-title" tabIndex={-1} ref={heading}>
        Waiting for a better position
      </h2>
      <p className="note">
        The form opens by itself once the position is newer than a few seconds and within {formatMetres(settings.wantAccuracyM)} (the accuracy chosen in Settings).
      </p>
      <p className="position-now">{positionLine(position, now, settings.wantAccuracyM)}</p>
      {/* Said once per change of what is missing, not each time the age or the accuracy moves. */}
      <p role="status" className="position-short">
        {fix === null ? (position.problem ?? 'No position yet.') : short && short.length > 0 ? `Not taken yet: ${short.map((s) => SHORTFALLS[s.why]).join('; ')}.` : ''}
      </p>
      <div className="actions">
        <button type="button" disabled={fix === null} onClick={() => fix && onTake(fix)}>
          Use this position anyway
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}
