/**
 * What went wrong with something done on the map (a refused move), over the map's top edge, where
 * the person is looking; announced when it appears, and kept until dismissed.
 */
export function MapNotice({ text, onDismiss }: { text: string | undefined; onDismiss: () => void }) {
  if (!text) return null;
  return (
    <div className="map-notice">
      <p role="alert">{text}</p>
      <button type="button" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
