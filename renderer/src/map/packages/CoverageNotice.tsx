import type { FootMessage } from '../MapFoot';

/**
 * Where no offline package covers the view and the online tiles are off or failing, the map
 * says so at street zooms (the bundled overview only shows countries and cities there) and
 * offers an import.
 */
export const COVERAGE_FROM_ZOOM = 9;

/** The notice, about no package here (whatever the zoom: a zoom in or out does not bring it back once dismissed). */
export const coverageNotice = (zoom: number, onImport: () => void): FootMessage => ({
  key: 'no package here',
  text: `No offline map covers this view at zoom ${zoom}: the bundled world map shows only countries and cities.`,
  action: { label: 'Import a map package…', onClick: onImport },
});
