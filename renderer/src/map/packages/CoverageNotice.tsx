/**
 * Where no offline package covers the view and the online tiles are off or failing, the map
 * says so at street zooms (the bundled overview only shows countries and cities there) and
 * offers an import.
 */
export const COVERAGE_FROM_ZOOM = 9;

export function CoverageNotice({ zoom, onImport }: { zoom: number; onImport: () => void }) {
  return (
    <div className="map-coverage" role="status">
      <p>No offline map covers this view at zoom {zoom}: the bundled world map shows only countries and cities.</p>
      <button type="button" onClick={onImport}>
        Import a map package…
      </button>
    </div>
  );
}
