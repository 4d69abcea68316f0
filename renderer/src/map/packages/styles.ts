import {
  CenteredTextSymbolizer,
  CircleSymbolizer,
  exp,
  LineLabelSymbolizer,
  LineSymbolizer,
  PolygonSymbolizer,
  type Feature,
  type LabelRule,
  type PaintRule,
} from 'protomaps-leaflet';
import type { VectorSchema } from '../../../../shared/maps';

/**
 * How a vector package is drawn, per schema, as data: fills, lines and labels by layer and
 * class. One builder below turns a table into protomaps-leaflet rules; the Protomaps schema
 * uses that library's own style (see vectorLayer.ts).
 */
interface Fill {
  layer: string;
  classes?: string[];
  color: string;
}
interface Line {
  layer: string;
  classes?: string[];
  color: string;
  /** Width in pixels at zoom 12 and at zoom 18 (exponential between). */
  width: [number, number];
  casing?: string;
  minzoom?: number;
}
interface Label {
  layer: string;
  along: boolean;
  size: number;
  color: string;
  minzoom?: number;
  classes?: string[];
}
interface StyleTable {
  /** The property that holds a feature's kind (`class` in most schemas). */
  classKey: string;
  fills: Fill[];
  lines: Line[];
  labels: Label[];
}

const WATER = '#a9d3f0';
const PARK = '#cfe8c4';
const BUILDING = '#e0d6cc';
const ROAD = '#ffffff';
const MAJOR = '#fbe3a0';
const CASING = '#c2b8ad';
const TEXT = '#333333';

const MAJOR_CLASSES = ['motorway', 'trunk', 'primary', 'secondary'];

const STYLES: Record<Exclude<VectorSchema, 'protomaps'>, StyleTable> = {
  'mapbox-streets': {
    classKey: 'class',
    fills: [
      { layer: 'landuse', classes: ['park', 'grass', 'wood', 'scrub', 'pitch', 'cemetery', 'agriculture'], color: PARK },
      { layer: 'water', color: WATER },
      { layer: 'building', color: BUILDING },
    ],
    lines: [
      { layer: 'waterway', color: WATER, width: [1, 4] },
      { layer: 'road', classes: ['street', 'street_limited', 'service', 'link', 'track'], color: ROAD, width: [1, 12], casing: CASING, minzoom: 12 },
      { layer: 'road', classes: ['tertiary'], color: ROAD, width: [1.5, 16], casing: CASING },
      { layer: 'road', classes: MAJOR_CLASSES, color: MAJOR, width: [2, 20], casing: CASING },
      { layer: 'road', classes: ['path', 'pedestrian'], color: '#d8cfc4', width: [0.5, 3], minzoom: 14 },
      { layer: 'road', classes: ['major_rail', 'minor_rail'], color: '#9a9a9a', width: [0.7, 2] },
      { layer: 'admin', color: '#9e8fb0', width: [1, 2] },
    ],
    labels: [
      { layer: 'road_label', along: true, size: 12, color: TEXT, minzoom: 13 },
      { layer: 'water_label', along: false, size: 12, color: '#2a6fa8' },
      { layer: 'place_label', along: false, size: 14, color: '#222222' },
      { layer: 'poi_label', along: false, size: 11, color: '#555555', minzoom: 16 },
      { layer: 'housenum_label', along: false, size: 10, color: '#777777', minzoom: 17 },
    ],
  },
  openmaptiles: {
    classKey: 'class',
    fills: [
      { layer: 'landcover', classes: ['grass', 'wood', 'farmland', 'wetland'], color: PARK },
      { layer: 'park', color: PARK },
      { layer: 'water', color: WATER },
      { layer: 'building', color: BUILDING },
    ],
    lines: [
      { layer: 'waterway', color: WATER, width: [1, 4] },
      { layer: 'transportation', classes: ['minor', 'service', 'track', 'raceway'], color: ROAD, width: [1, 12], casing: CASING, minzoom: 12 },
      { layer: 'transportation', classes: ['tertiary'], color: ROAD, width: [1.5, 16], casing: CASING },
      { layer: 'transportation', classes: MAJOR_CLASSES, color: MAJOR, width: [2, 20], casing: CASING },
      { layer: 'transportation', classes: ['path'], color: '#d8cfc4', width: [0.5, 3], minzoom: 14 },
      { layer: 'transportation', classes: ['rail', 'transit'], color: '#9a9a9a', width: [0.7, 2] },
      { layer: 'boundary', color: '#9e8fb0', width: [1, 2] },
    ],
    labels: [
      { layer: 'transportation_name', along: true, size: 12, color: TEXT, minzoom: 13 },
      { layer: 'water_name', along: false, size: 12, color: '#2a6fa8' },
      { layer: 'place', along: false, size: 14, color: '#222222' },
      { layer: 'poi', along: false, size: 11, color: '#555555', minzoom: 16 },
      { layer: 'housenumber', along: false, size: 10, color: '#777777', minzoom: 17 },
    ],
  },
  // Unknown schemas: every layer drawn plainly (see fallbackTable), nothing listed by name.
  other: { classKey: 'class', fills: [], lines: [], labels: [] },
};

const GEOM = { point: 1, line: 2, polygon: 3 } as const;
const ofClass = (key: string, classes: string[] | undefined) => (_z: number, f: Feature): boolean =>
  classes === undefined || classes.includes(String(f.props[key]));
const ofGeometry = (kind: number) => (_z: number, f: Feature): boolean => f.geomType === kind;
const both = (a: (z: number, f: Feature) => boolean, b: (z: number, f: Feature) => boolean) => (z: number, f: Feature): boolean => a(z, f) && b(z, f);
const widthByZoom = ([at12, at18]: [number, number]) => exp(1.6, [[12, at12], [18, at18]]);
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/** Layers of a schema the map has no table for: polygons, then lines, then points and names. */
function fallbackTable(layers: string[]): { paint: PaintRule[]; labels: LabelRule[] } {
  return {
    paint: [
      ...layers.map((dataLayer): PaintRule => ({ dataLayer, filter: ofGeometry(GEOM.polygon), symbolizer: new PolygonSymbolizer({ fill: '#e4e0da', stroke: '#c8c0b6', width: 0.5 }) })),
      ...layers.map((dataLayer): PaintRule => ({ dataLayer, filter: ofGeometry(GEOM.line), symbolizer: new LineSymbolizer({ color: '#8d8d8d', width: widthByZoom([1, 6]) }) })),
      ...layers.map((dataLayer): PaintRule => ({ dataLayer, filter: ofGeometry(GEOM.point), symbolizer: new CircleSymbolizer({ radius: 3, fill: '#6d6d6d' }) })),
    ],
    labels: layers.flatMap((dataLayer): LabelRule[] => [
      { dataLayer, filter: ofGeometry(GEOM.line), symbolizer: new LineLabelSymbolizer({ labelProps: ['name'], fill: TEXT, stroke: 'white', width: 2, font: `12px ${FONT}` }) },
      { dataLayer, filter: (_z, f) => f.geomType !== GEOM.line, symbolizer: new CenteredTextSymbolizer({ labelProps: ['name'], fill: TEXT, stroke: 'white', width: 2, font: `12px ${FONT}` }) },
    ]),
  };
}

/** The rules for one schema's table, plus plain rules for any layer of the package the table does not name. */
export function rulesFor(schema: Exclude<VectorSchema, 'protomaps'>, layers: string[]): { paint: PaintRule[]; labels: LabelRule[] } {
  const table = STYLES[schema];
  const named = new Set([...table.fills, ...table.lines, ...table.labels].map((r) => r.layer));
  const rest = fallbackTable(layers.filter((l) => !named.has(l)));
  const paint: PaintRule[] = [
    ...rest.paint,
    ...table.fills.map((f): PaintRule => ({ dataLayer: f.layer, filter: both(ofClass(table.classKey, f.classes), ofGeometry(GEOM.polygon)), symbolizer: new PolygonSymbolizer({ fill: f.color }) })),
    ...table.lines.flatMap((l): PaintRule[] => {
      const filter = both(ofClass(table.classKey, l.classes), ofGeometry(GEOM.line));
      const rule = { dataLayer: l.layer, filter, ...(l.minzoom !== undefined ? { minzoom: l.minzoom } : {}) };
      const [a, b] = l.width;
      return [
        ...(l.casing ? [{ ...rule, symbolizer: new LineSymbolizer({ color: l.casing, width: widthByZoom([a + 1, b + 2]), lineCap: 'round' }) }] : []),
        { ...rule, symbolizer: new LineSymbolizer({ color: l.color, width: widthByZoom(l.width), lineCap: 'round' }) },
      ];
    }),
  ];
  const labels: LabelRule[] = [
    ...table.labels.map((l): LabelRule => {
      const font = `${l.size}px ${FONT}`;
      const symbolizer = l.along
        ? new LineLabelSymbolizer({ labelProps: ['name', 'name_en'], fill: l.color, stroke: 'white', width: 3, font })
        : new CenteredTextSymbolizer({ labelProps: ['name', 'name_en', 'house_num', 'housenumber'], fill: l.color, stroke: 'white', width: 3, font });
      return { dataLayer: l.layer, symbolizer, ...(l.minzoom !== undefined ? { minzoom: l.minzoom } : {}) };
    }),
    ...rest.labels,
  ];
  return { paint, labels };
}
