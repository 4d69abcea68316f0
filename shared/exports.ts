/** The formats a client's POIs export to and import from. */
export const EXPORT_FORMATS = ['geojson', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What an import did. */
export interface ImportReport {
  /** The change log's actor id of this import's additions (`{"kind": "import", "id": ...}`). */
  importId: string;
  rows: number;
  added: number;
  updated: number;
  /** Each refused row: where it is in the file and why. The other rows go in. */
  refused: Array<{ where: string; reason: string }>;
  ignoredColumns: string[];
  createdCategories: string[];
  dryRun: boolean;
  cancelled: boolean;
}
