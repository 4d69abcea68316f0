import { useEffect, useId, useRef, useState } from 'react';

/** One thing the map says at its foot: `key` says what it is about (text may vary with it, as a zoom); an action where one helps. */
export interface FootMessage {
  key: string;
  text: string;
  action?: { label: string; onClick: () => void };
}

/** The gap between the notice and the map's credits, above which it stands. */
const ABOVE_CREDITS = 6;

/**
 * Keeps the notice above the map's credits (Leaflet's attribution, bottom right), however many
 * lines they wrap to on a narrow map: over them, it would hide what the map must credit.
 */
function useAboveCredits(foot: React.RefObject<HTMLDivElement | null>): void {
  useEffect(() => {
    const credits = foot.current?.parentElement?.querySelector<HTMLElement>('.leaflet-control-attribution');
    if (!credits || !foot.current) return;
    const place = (): void => {
      if (foot.current) foot.current.style.bottom = `${credits.offsetHeight + ABOVE_CREDITS}px`;
    };
    place();
    const observer = new ResizeObserver(place);
    observer.observe(credits);
    return () => observer.disconnect();
  }, [foot]);
}

/**
 * What the map has to say at its foot (tiles that did not load, no offline map here), on one
 * line whatever their number, their full text under Details; Dismiss hides them until what
 * they are about changes. Above the map's credits, never over its controls. The line is a live
 * region, there from the start, so what appears in it is announced.
 */
export function MapFoot({ messages }: { messages: FootMessage[] }) {
  const foot = useRef<HTMLDivElement>(null);
  const detailsId = useId();
  const about = messages.map((m) => m.key).join('\n');
  const [dismissed, setDismissed] = useState<string | undefined>();
  const [open, setOpen] = useState(false);
  useAboveCredits(foot);
  const shown = messages.length > 0 && dismissed !== about;
  const dismiss = (): void => {
    setDismissed(about);
    setOpen(false);
    // Its button goes: focus goes to the map, not to the page's start.
    foot.current?.parentElement?.querySelector<HTMLElement>('.leaflet-container')?.focus();
  };
  return (
    <div className="map-foot" ref={foot} aria-label="Notices about the map" role="group">
      {shown && open && (
        <div className="map-foot-details" id={detailsId}>
          {messages.map((m) => (
            <div key={m.key}>
              <p>{m.text}</p>
              {m.action && (
                <button type="button" onClick={m.action.onClick}>
                  {m.action.label}
                </button>
              )}
            </div>
          ))}
        </div>
      )}
      <div className={shown ? 'map-foot-bar' : 'map-foot-bar empty'}>
        <p className="map-foot-line" role="status">
          {shown ? messages.map((m) => m.text).join(' ') : ''}
        </p>
        {shown && (
          <>
            <button type="button" aria-expanded={open} aria-controls={detailsId} onClick={() => setOpen(!open)}>
              {open ? 'Less' : 'Details'}
            </button>
            {/* Named apart from a refusal's Dismiss (MapNotice), which may be on the map at once. */}
            <button type="button" aria-label="Dismiss the map's notices" onClick={dismiss}>
              Dismiss
            </button>
          </>
        )}
      </div>
    </div>
  );
}
