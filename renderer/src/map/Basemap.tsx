import L from 'leaflet';
import { useEffect } from 'react';
import { useMap } from 'react-leaflet';
import { detailedCountries, worldCountries } from './basemap';
import type { FeatureCollection, Geometry } from 'geojson';

const LAND = '#efeadf';
const BORDER = '#8a8a7a';

/** A polygon's rings in Web Mercator units of the whole world ([0, 1] both ways), with its box. */
interface Shape {
  rings: Float64Array[];
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

const MAX_LAT = 85.0511287798;

function project(lng: number, lat: number): [number, number] {
  const clamped = Math.max(-MAX_LAT, Math.min(MAX_LAT, lat));
  const sin = Math.sin((clamped * Math.PI) / 180);
  return [(lng + 180) / 360, 0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)];
}

/** Projects every country once, so that drawing a tile is only scaling and translating. */
function buildShapes(countries: FeatureCollection<Geometry>): Shape[] {
  const shapes: Shape[] = [];
  for (const feature of countries.features) {
    const g = feature.geometry;
    const polygons = g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : [];
    for (const polygon of polygons) {
      const shape: Shape = { rings: [], minX: 1, minY: 1, maxX: 0, maxY: 0 };
      for (const ring of polygon) {
        const flat = new Float64Array(ring.length * 2);
        ring.forEach(([lng, lat], i) => {
          const [x, y] = project(lng!, lat!);
          flat[2 * i] = x;
          flat[2 * i + 1] = y;
          shape.minX = Math.min(shape.minX, x);
          shape.maxX = Math.max(shape.maxX, x);
          shape.minY = Math.min(shape.minY, y);
          shape.maxY = Math.max(shape.maxY, y);
        });
        shape.rings.push(flat);
      }
      shapes.push(shape);
    }
  }
  return shapes;
}

/**
 * The offline world basemap (Natural Earth countries, bundled) drawn as canvas tiles under the
 * map's tile layer: each 256-pixel tile draws only the countries that touch it, and Leaflet keeps
 * tiles it has drawn, so a pan draws only the new edge and a zoom only one screen of tiles.
 */
/** From this zoom the 1:10m shapes are drawn (1:50m is as fine as the screen below it). */
const DETAILED_FROM_ZOOM = 6;

class CountryTiles extends L.GridLayer {
  private coarse: Shape[] | undefined;
  private detailed: Shape[] | undefined;
  private loading = false;
  /** The tiles on screen, to draw again in place when the detailed shapes arrive (a redraw() would blank them first). */
  private readonly shown = new Map<string, { canvas: HTMLCanvasElement; coords: L.Coords }>();

  override onAdd(map: L.Map): this {
    this.on('tileunload', (e: L.TileEvent) => this.shown.delete(this.keyOf(e.coords)));
    return super.onAdd(map);
  }

  private keyOf(coords: L.Coords): string {
    return `${coords.x}:${coords.y}:${coords.z}`;
  }

  private shapesFor(zoom: number): Shape[] {
    this.coarse ??= buildShapes(worldCountries());
    if (zoom < DETAILED_FROM_ZOOM) return this.coarse;
    if (this.detailed) return this.detailed;
    if (!this.loading) {
      this.loading = true;
      // Meanwhile the coarse shapes; once loaded, the tiles on screen are drawn again, in place.
      void detailedCountries().then((countries) => {
        this.detailed = buildShapes(countries);
        const size = this.getTileSize();
        const ratio = window.devicePixelRatio || 1;
        for (const { canvas, coords } of this.shown.values()) {
          if (coords.z < DETAILED_FROM_ZOOM) continue;
          canvas.getContext('2d')?.clearRect(0, 0, canvas.width, canvas.height);
          this.draw(canvas, coords, size, ratio);
        }
      });
    }
    return this.coarse;
  }

  /**
   * Tiles are drawn asynchronously (`done`) when the page is idle, after the POIs of a new view
   * are fetched and shown: Leaflet keeps the previous tiles on screen until the new ones are
   * ready, so nothing flashes blank.
   */
  protected override createTile(coords: L.Coords, done: L.DoneCallback): HTMLElement {
    const size = this.getTileSize();
    const ratio = window.devicePixelRatio || 1;
    const canvas = document.createElement('canvas');
    canvas.width = size.x * ratio;
    canvas.height = size.y * ratio;
    this.shown.set(this.keyOf(coords), { canvas, coords });
    requestIdleCallback(
      () => {
        this.draw(canvas, coords, size, ratio);
        done(undefined, canvas);
      },
      { timeout: 500 },
    );
    return canvas;
  }

  private draw(canvas: HTMLCanvasElement, coords: L.Coords, size: L.Point, ratio: number): void {
    const shapes = this.shapesFor(coords.z);
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    const scale = 2 ** coords.z;
    const [x0, y0] = [coords.x / scale, coords.y / scale];
    const [x1, y1] = [(coords.x + 1) / scale, (coords.y + 1) / scale];
    const px = size.x * scale * ratio;
    ctx.fillStyle = LAND;
    ctx.strokeStyle = BORDER;
    ctx.lineWidth = 0.6 * ratio;
    for (const shape of shapes) {
      if (shape.maxX < x0 || shape.minX > x1 || shape.maxY < y0 || shape.minY > y1) continue;
      ctx.beginPath();
      for (const ring of shape.rings) {
        ctx.moveTo((ring[0]! - x0) * px, (ring[1]! - y0) * px);
        for (let i = 2; i < ring.length; i += 2) ctx.lineTo((ring[i]! - x0) * px, (ring[i + 1]! - y0) * px);
        ctx.closePath();
      }
      ctx.fill('evenodd');
      ctx.stroke();
    }
  }
}

/** What the map falls back to when online tiles do not load: named so in the offline notice. */
export const BASEMAP_NAME = 'the bundled world map';

/** world-atlas draws Natural Earth's 1:110m countries. */
const BASEMAP_CREDIT = '<a href="https://www.naturalearthdata.com/" target="_blank" rel="noopener noreferrer">Natural Earth</a>';

export function Basemap({ pane }: { pane: string }) {
  const map = useMap();
  useEffect(() => {
    const layer = new CountryTiles({ pane, updateWhenZooming: false, keepBuffer: 4, attribution: BASEMAP_CREDIT }).addTo(map);
    // Every tile of the view drawn: `npm run bench` times the basemap by this mark.
    layer.on('load', () => performance.mark('poi-basemap-complete'));
    return () => {
      layer.remove();
    };
  }, [map, pane]);
  return null;
}
