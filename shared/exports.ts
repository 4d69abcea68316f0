/** The formats a client's POIs export to (and, later, import from). */
export const EXPORT_FORMATS = ['geojson', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
