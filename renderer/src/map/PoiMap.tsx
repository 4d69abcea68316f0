import L from 'leaflet';
import { useEffect, useRef, useState } from 'react';
import { MapContainer, Marker, Pane, useMap, useMapEvents } from 'react-leaflet';
import type { Input, MapView } from '../../../shared/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useMovePoi, type Move } from '../pois/mutations';
import { mapViewQuery, useLiveData, useMapView } from '../pois/queries';
import { useSettings } from '../settings/queries';
import { Basemap } from './Basemap';
import { draftIcon } from './icons';
import { PointsLayer } from './PointsLayer';
import { MapHash, parseMapHash } from './MapHash';
import { MapNotice } from './MapNotice';
import { offlineNotice, OnlineTiles } from './OnlineTiles';
import { MapFoot } from './MapFoot';
import { PlaceLabels } from './PlaceLabels';
import { coverageNotice, COVERAGE_FROM_ZOOM } from './packages/CoverageNotice';
import { useLayerChoice, showPackage } from './packages/layerChoice';
import { MapLayersPanel } from './packages/MapLayersPanel';
import { useImportPackage } from './packages/mutations';
import { covers, PACKAGE_PANE, PackageLayers } from './packages/PackageLayers';
import { useMapPackages, useStartView, useTileUrls } from './packages/queries';
import type { MapPackage } from '../../../shared/maps';
import { useConfirm } from '../ui/Confirm';
import { position } from '../ui/format';
import { PositionCorner } from '../location/PositionCorner';
import { PositionLayer } from '../location/PositionLayer';
import type { Position } from '../location/useFix';

/** Asks for the next (1) or previous (-1) POI on screen to be opened; `at` as Focus's. */
export interface PinStep {
  by: 1 | -1;
  at: number;
}

export interface Focus {
  lat: number;
  lng: number;
  /** Changes on every request, so the same place can be focused twice. */
  at: number;
}

type View = Omit<Input<'pois.map'>, 'clientId'>;

interface Props {
  /** None yet: the map is shown all the same, with no POIs on it. */
  clientId: string | undefined;
  /** The list of clients has come: `clientId` is the one to show, not a guess before it. */
  clientsKnown: boolean;
  filter: { q: string; categories: number[] };
  focus: Focus | undefined;
  selected: number | undefined;
  /** Where a new POI is being added; `byKeyboard` (at the map centre): a crosshair marks the centre. */
  draft: { lat: number; lng: number; byKeyboard?: boolean } | undefined;
  onMapClick: (lat: number, lng: number) => void;
  /** A pin was opened; `byKeyboard` when from the keyboard (focus follows to its details). */
  onSelect: (poi: number, byKeyboard: boolean) => void;
  onCentre: (centre: { lat: number; lng: number }) => void;
  layersOpen: boolean;
  onLayersOpen: (open: boolean) => void;
  /** Shows every POI again: the map showed only the search's matches, and said so. */
  onClearFilter: () => void;
  pinStep: PinStep | undefined;
  /** My position, from the location source chosen in Settings (location/useFix.ts). */
  position: Position;
  onAddHere: () => void;
}

function viewOf(map: L.Map): Omit<View, 'q' | 'categories'> {
  const b = map.getBounds();
  const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));
  const west = b.getWest();
  const east = b.getEast();
  // Wider than the world: ask for all of it.
  const whole = east - west >= 360;
  return {
    south: clamp(b.getSouth(), -90, 90),
    north: clamp(b.getNorth(), -90, 90),
    west: whole ? -180 : L.Util.wrapNum(west, [-180, 180], true),
    east: whole ? 180 : L.Util.wrapNum(east, [-180, 180], true),
    zoom: Math.round(map.getZoom()),
  };
}

/** Reports the viewport after every move, map clicks, and the centre for "add here". */
function ViewTracker(props: { onView: (v: Omit<View, 'q' | 'categories'>) => void; onClick: Props['onMapClick']; onCentre: Props['onCentre'] }) {
  const map = useMapEvents({
    moveend: () => {
      props.onView(viewOf(map));
      const c = map.getCenter().wrap();
      props.onCentre({ lat: c.lat, lng: c.lng });
    },
    click: (e) => {
      const p = e.latlng.wrap();
      props.onClick(p.lat, p.lng);
    },
  });
  useEffect(() => {
    props.onView(viewOf(map));
    // Once, when the map exists; later views come from moveend.
  }, [map]);
  return null;
}

function FocusOn({ focus }: { focus: Focus | undefined }) {
  const map = useMap();
  useEffect(() => {
    if (focus) map.setView([focus.lat, focus.lng], Math.max(map.getZoom(), 16));
  }, [focus, map]);
  return null;
}

/**
 * Opens the map around the client's POIs, or on a package while it has none (the sample city on
 * a first start): when the page opens with no view in its address, and when another client is
 * chosen. A view in the address (a link, a reload) is kept.
 */
function StartView({ clientId, ready }: { clientId: string | undefined; ready: boolean }) {
  const map = useMap();
  const [named] = useState(() => parseMapHash(location.hash) !== undefined);
  // The client the map was last opened for, once the clients are known (`ready`): the first one
  // only then, or a view named by the address would be replaced when the list arrives.
  const [openedFor, setOpenedFor] = useState<{ client: string | undefined } | undefined>();
  const due = ready && (openedFor === undefined || openedFor.client !== clientId);
  const keepNamed = named && openedFor === undefined;
  const start = useStartView(clientId, due && !keepNamed);
  // Moved meanwhile (a drag, a search result, a #map= typed): the start view comes too late to
  // take the map from under the person. Counted again from each change of client.
  const moved = useRef(false);
  useMapEvents({ movestart: () => void (moved.current = true) });
  useEffect(() => {
    // Only when the client changes: openedFor is read here, not followed.
    if (openedFor !== undefined) moved.current = false;
  }, [clientId]);
  useEffect(() => {
    if (!due) return;
    if (keepNamed) {
      setOpenedFor({ client: clientId });
      return;
    }
    if (start.isPending || start.isFetching) return;
    setOpenedFor({ client: clientId });
    if (moved.current) return;
    const view = start.data;
    if (!view) return;
    if (view.kind === 'place') map.setView([view.lat, view.lng], view.zoom, { animate: false });
    else map.fitBounds(L.latLngBounds([view.south, view.west], [view.north, view.east]), { padding: [40, 40], maxZoom: 16, animate: false });
  }, [due, keepNamed, start.isPending, start.isFetching, start.data, clientId, map]);
  // For the tests: the map has taken (or declined) its start view, nothing more will move it by itself.
  const settled = openedFor !== undefined && !due;
  useEffect(() => {
    map.getContainer().dataset.startView = settled ? 'settled' : 'pending';
  }, [settled, map]);
  return null;
}

/** Opens a package where it suggests, or on its whole area. */
function GoTo({ pkg }: { pkg: { to: MapPackage; at: number } | undefined }) {
  const map = useMap();
  useEffect(() => {
    if (!pkg) return;
    const [lng, lat, zoom] = pkg.to.center;
    map.setView([lat, lng], Math.max(zoom, pkg.to.minZoom));
  }, [pkg, map]);
  return null;
}

const hostOf = (template: string): string => {
  try {
    return new URL(template.replace(/[{}]/g, '')).host;
  } catch {
    return 'tile server';
  }
};

/**
 * Marks each moment a new answer's points are on screen (`poi-map-drawn`, and the first one as
 * `poi-map-first-draw`): the benchmark and the tests time the map by these marks.
 */
/** The map's box changes without a window resize (the phone layout's sheet folds): Leaflet must re-measure. */
function SizeWatcher() {
  const map = useMap();
  useEffect(() => {
    const observer = new ResizeObserver(() => map.invalidateSize());
    observer.observe(map.getContainer());
    return () => observer.disconnect();
  }, [map]);
  return null;
}

function DrawnMark({ data }: { data: MapView | undefined }) {
  const map = useMap();
  useEffect(() => {
    if (!data) return;
    map.getContainer().dataset.pointsDrawn = String(data.points.length);
    // After the browser has painted what React committed.
    requestAnimationFrame(() => {
      if (!performance.getEntriesByName('poi-map-first-draw').length) performance.mark('poi-map-first-draw');
      performance.mark('poi-map-drawn');
    });
  }, [data, map]);
  return null;
}

/** The map of a client's POIs: clusters from the main process, click to add, drag to move. */
export function PoiMap(props: Props) {
  const settings = useSettings();
  const [view, setView] = useState<Omit<View, 'q' | 'categories'> | undefined>();
  const withFilter = (v: Omit<View, 'q' | 'categories'>): View => ({
    ...v,
    ...(props.filter.q ? { q: props.filter.q } : {}),
    ...(props.filter.categories.length ? { categories: props.filter.categories } : {}),
  });
  const query: View | undefined = view && withFilter(view);
  const queryClient = useQueryClient();
  // Ask for the new view's points as soon as the map stops, not a render later.
  const onView = (v: Omit<View, 'q' | 'categories'>) => {
    if (props.clientId) void queryClient.prefetchQuery(mapViewQuery(props.clientId, withFilter(v)));
    setView(v);
  };
  const [tilesFailing, setTilesFailing] = useState(false);
  const choice = useLayerChoice();
  const packages = useMapPackages();
  const tileUrls = useTileUrls();
  const shown = (packages.data ?? []).filter((p) => !choice.hidden.includes(p.id));
  const covering = view ? shown.filter((p) => covers(p, view)) : [];
  const { layersOpen, onLayersOpen: setLayersOpen } = props;
  const [goTo, setGoTo] = useState<{ to: MapPackage; at: number } | undefined>();
  const onImported = (pkg: MapPackage): void => {
    showPackage(pkg.id, true);
    setGoTo({ to: pkg, at: Date.now() });
  };
  const upload = useImportPackage(onImported);
  const [dropping, setDropping] = useState(false);
  const offline = !choice.online || tilesFailing;
  const points = useMapView(props.clientId, query);
  useLiveData(props.clientId);
  // With no client there are no pins to move: its client id is never sent.
  const mover = useMovePoi(props.clientId ?? '');
  const confirm = useConfirm();
  const onMove = (to: Move, putBack: () => void): void => {
    const question = { title: 'Move a POI', text: `Move “${to.name || 'this POI'}” to ${position(to.lat, to.lng)}?`, yes: 'Move', no: 'Leave it where it was', destructive: false };
    void confirm(question).then((yes) => (yes ? mover.move(to, putBack) : putBack()));
  };

  return (
    <div
      className="map-area"
      onDragOver={(e) => {
        if (!e.dataTransfer.types.includes('Files')) return;
        e.preventDefault();
        setDropping(true);
      }}
      onDragLeave={() => setDropping(false)}
      onDrop={(e) => {
        const file = e.dataTransfer.files[0];
        if (!file) return;
        e.preventDefault();
        setDropping(false);
        setLayersOpen(true);
        void upload.start(file);
      }}
    >
      <MapContainer className="map" center={[40.4169, -3.7035]} zoom={5} minZoom={2} worldCopyJump keyboard aria-label="Map of points of interest">
        <Pane name="basemap" style={{ zIndex: 150 }}>
          {choice.overview && <Basemap pane="basemap" />}
        </Pane>
        {choice.online && settings.data && tileUrls.data && (
          <OnlineTiles
            key={`${settings.data.tileUrl} ${settings.data.tileCacheMb > 0}`}
            settings={settings.data}
            url={settings.data.tileCacheMb > 0 ? tileUrls.data.onlineTiles : settings.data.tileUrl}
            onFailing={setTilesFailing}
          />
        )}
        <Pane name={PACKAGE_PANE} style={{ zIndex: 210 }}>
          {tileUrls.data && <PackageLayers packages={shown} urlOf={tileUrls.data.packageTiles} view={view} />}
        </Pane>
        <ViewTracker onView={onView} onClick={props.onMapClick} onCentre={props.onCentre} />
        <MapHash />
        <SizeWatcher />
        {offline && covering.length === 0 && <PlaceLabels />}
        <PointsLayer points={points.data?.points} selected={props.selected} onSelect={props.onSelect} onMove={onMove} step={props.pinStep} />
        <PositionLayer fix={props.position.fix} />
        {props.draft && <Marker position={[props.draft.lat, props.draft.lng]} icon={draftIcon} title="New POI" interactive={false} />}
        <DrawnMark data={points.isPlaceholderData ? undefined : points.data} />
        {/* Last: their moves must reach the hash and the view tracker, whose listeners are set before them. */}
        <StartView clientId={props.clientId} ready={props.clientsKnown} />
        <FocusOn focus={props.focus} />
        <GoTo pkg={goTo} />
      </MapContainer>
      {props.draft?.byKeyboard && <div className="map-crosshair" aria-hidden="true" />}
      <PositionCorner position={props.position} onAdd={props.onAddHere} />
      <MapFoot
        messages={[
          ...offlineNotice(tilesFailing, covering.map((p) => p.name)),
          ...(offline && view && view.zoom >= COVERAGE_FROM_ZOOM && covering.length === 0 ? [coverageNotice(view.zoom, () => setLayersOpen(true))] : []),
        ]}
      />
      <MapLayersPanel
        open={layersOpen}
        onOpen={setLayersOpen}
        onlineName={settings.data ? hostOf(settings.data.tileUrl) : 'tile server'}
        upload={upload}
        onGoTo={(pkg) => setGoTo({ to: pkg, at: Date.now() })}
      />
      {dropping && <div className="map-drop" aria-hidden="true">Drop the map package to import it</div>}
      <MapNotice text={mover.refusal} onDismiss={mover.dismiss} />
      {/* A POI added while a search filters the map does not appear on it unless it matches: say so (a first user took one for lost). */}
      {(props.filter.q !== '' || props.filter.categories.length > 0) && (
        <div className="map-filter" role="status">
          <span>{props.filter.q ? `Only POIs matching “${props.filter.q}”` : 'Only POIs of the chosen category'}</span>
          <button type="button" onClick={props.onClearFilter}>
            Show all
          </button>
        </div>
      )}
    </div>
  );
}
