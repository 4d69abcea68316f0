import { useEffect, useRef, useState } from 'react';
import { useClients } from './clients/queries';
import { PoiMap, type Focus, type PinStep } from './map/PoiMap';
import { PoiDetails } from './pois/PoiDetails';
import { PoiForm } from './pois/PoiForm';
import { isTab, TAB_PANELS, type PanelContext, type TabKind } from './panels';
import { PanelButtons } from './PanelButtons';
import { keyBelongsToFocus, shortcutOf } from './shortcuts';
import { ServiceBanner } from './ServiceBanner';
import { ShortcutsDialog } from './ShortcutsDialog';
import { rememberClient, rememberedClient, type Panel } from './state';
import { OPEN_DIALOG, useConfirm } from './ui/Confirm';
import { fixShortfall, type Fix } from '../../shared/location';
import { PositionWait } from './location/PositionWait';
import { PositionContext, usePositionSource } from './location/useFix';
import { hasTypedWork, watchTypedWork } from './ui/typedWork';

export function App() {
  const clients = useClients();
  const [clientId, setClientId] = useState<string | undefined>(rememberedClient());
  const [panel, setPanel] = useState<Panel>({ kind: 'search' });
  const [filter, setFilter] = useState<{ q: string; categories: number[] }>({ q: '', categories: [] });
  const [focus, setFocus] = useState<Focus | undefined>();
  const [centre, setCentre] = useState<{ lat: number; lng: number }>({ lat: 40.4169, lng: -3.7035 });

  // Fall back to the first client when none is remembered (or it was deleted).
  useEffect(() => {
    const list = clients.data;
    if (list && list.length > 0 && !list.some((c) => c.client_id === clientId)) setClientId(list[0]!.client_id);
  }, [clients.data, clientId]);

  const selectClient = (id: string) => {
    setClientId(id);
    rememberClient(id);
    setPanel({ kind: 'search' });
  };

  // On a phone the side panel is a sheet under the map that can be folded away; what opens a
  // panel unfolds it.
  const [sheetFolded, setSheetFolded] = useState(false);
  useEffect(() => setSheetFolded(false), [panel]);

  // Where the pending marker of a new POI is drawn: where the map was clicked, then what is typed.
  const [typedAt, setTypedAt] = useState<{ lat: number; lng: number } | undefined>();
  useEffect(() => setTypedAt(undefined), [panel]);
  const [layersOpen, setLayersOpen] = useState(false);
  const [helpOpen, setHelpOpen] = useState(false);
  const [pinStep, setPinStep] = useState<PinStep | undefined>();
  const focusMap = (): void => document.querySelector<HTMLElement>('.leaflet-container')?.focus();

  // Add at my position: at once with a fix good enough, else through the wait (location/PositionWait.tsx).
  const position = usePositionSource();
  const takeFix = (fix: Fix): void => {
    setFocus({ lat: fix.lat, lng: fix.lng, at: Date.now() });
    setPanel({ kind: 'poi-add', lat: fix.lat, lng: fix.lng, taken: { fix, from: position.from } });
  };
  const addHere = async (): Promise<void> => {
    // A POI's form being filled is not replaced without asking (as Escape). An admin panel's is:
    // its fields are saved by their own button, and stay as typed until then.
    const question = { title: 'Discard what you typed', text: 'Discard what you typed in this panel, and add a POI at your position?', yes: 'Discard it', no: 'Keep editing', destructive: true };
    const filling = panel.kind === 'poi-add' || panel.kind === 'poi-edit';
    if (filling && hasTypedWork(document.getElementById('side-panel')) && !(await confirm(question))) return;
    const fix = position.fix;
    const settings = position.settings;
    if (fix && settings && settings.source !== 'none' && fixShortfall(fix, settings.wantAccuracyM, Date.now()).length === 0) return takeFix(fix);
    // Waiting: the map shows where the source puts us meanwhile.
    if (fix) setFocus({ lat: fix.lat, lng: fix.lng, at: Date.now() });
    setPanel({ kind: 'poi-here' });
  };

  // Escape closes what is open in the side panel (a POI's details or form, as Cancel does, or a
  // panel other than Search) and gives focus back to the map, where the keyboard user came from.
  // Shortcuts (shortcuts.ts) act when no field, list or dialog has the keyboard.
  const confirm = useConfirm();
  const closePanel = async (): Promise<void> => {
    const question = { title: 'Discard what you typed', text: 'Discard what you typed in this panel?', yes: 'Discard it', no: 'Keep editing', destructive: true };
    // Typed work is not thrown away on a key press: a panel with changes asks first.
    if (hasTypedWork(document.getElementById('side-panel')) && !(await confirm(question))) return;
    setPanel(panel.kind === 'poi-edit' ? { kind: 'poi', poi: panel.poi } : { kind: 'search' });
    focusMap();
  };
  const keys = useRef<(e: KeyboardEvent) => void>(() => undefined);
  keys.current = (e: KeyboardEvent): void => {
    if (e.defaultPrevented || e.isComposing || document.querySelector(OPEN_DIALOG)) return;
    if (e.key === 'Escape') {
      if (panel.kind !== 'search') void closePanel();
      return;
    }
    if (keyBelongsToFocus(e.target)) return;
    const shortcut = shortcutOf(e);
    if (!shortcut) return;
    e.preventDefault();
    if (shortcut === 'help') setHelpOpen(true);
    else if (shortcut === 'add') setPanel({ kind: 'poi-add', lat: centre.lat, lng: centre.lng, byKeyboard: true });
    else if (shortcut === 'here') void addHere();
    else if (shortcut === 'search') openSearch();
    else if (shortcut === 'layers') toggleLayers();
    else if (shortcut === 'next' || shortcut === 'previous') setPinStep({ by: shortcut === 'next' ? 1 : -1, at: Date.now() });
    else if (shortcut === 'edit' && panel.kind === 'poi') setPanel({ kind: 'poi-edit', poi: panel.poi });
    else if (shortcut === 'map') focusMap();
  };
  useEffect(() => {
    const side = document.getElementById('side-panel');
    return side ? watchTypedWork(side) : undefined;
  }, []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => keys.current(e);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // From the keyboard the layers open with focus in them (a click or a drop leaves it where it is).
  const toggleLayers = (): void => {
    setLayersOpen(!layersOpen);
    if (!layersOpen) requestAnimationFrame(() => document.querySelector<HTMLElement>('.map-layers-panel input, .map-layers-panel button')?.focus());
  };

  const openSearch = (): void => {
    setPanel({ kind: 'search' });
    setSheetFolded(false);
    // Once the panel is drawn.
    requestAnimationFrame(() => document.getElementById('search-q')?.focus());
  };

  const tab = isTab(panel.kind) ? TAB_PANELS[panel.kind] : undefined;
  const context: PanelContext = {
    // Read only by panels that need a client, rendered only when there is one.
    clientId: clientId ?? '',
    selected: clientId,
    selectClient,
    openPoi: (poi) => setPanel({ kind: 'poi', poi }),
    search: {
      filter,
      onFilter: setFilter,
      onPick: (poi) => {
        setFocus({ lat: poi.latitude, lng: poi.longitude, at: Date.now() });
        setPanel({ kind: 'poi', poi: poi.id });
      },
      onAddAtCentre: () => setPanel({ kind: 'poi-add', lat: centre.lat, lng: centre.lng, byKeyboard: true }),
    },
  };

  return (
    <PositionContext.Provider value={position}>
      <div className="app">
        {/* The map's pins come before the side panel in Tab order: this is the way past them. It moves
            focus itself rather than following its href: the address's fragment holds the map view. */}
        <a
          href="#side-panel"
          className="skip-link"
          onClick={(e) => {
            e.preventDefault();
            setSheetFolded(false);
            document.getElementById('side-panel')?.focus();
          }}
        >
          Skip to the side panel
        </a>
        <header className="topbar">
          <h1>POI Membership Admin</h1>
          <label className="client-picker">
            Client application{' '}
            <select value={clientId ?? ''} onChange={(e) => selectClient(e.target.value)} aria-label="Client application">
              {(clients.data ?? []).map((c) => (
                <option key={c.client_id} value={c.client_id}>
                  {c.name}
                </option>
              ))}
            </select>
          </label>
          <PanelButtons current={isTab(panel.kind) ? (panel.kind satisfies TabKind) : undefined} onOpen={(kind) => setPanel({ kind })} />
          <button type="button" className="shortcuts-button" onClick={() => setHelpOpen(true)} aria-keyshortcuts="?">
            Keyboard shortcuts
          </button>
        </header>
        <ServiceBanner />
        <main className="workspace">
          <PoiMap
            clientId={clientId}
            // Until the list has come, the remembered client may be gone and another will be shown.
            clientsKnown={clients.data !== undefined && (clientId === undefined ? clients.data.length === 0 : clients.data.some((c) => c.client_id === clientId))}
            filter={filter}
            focus={focus}
            selected={panel.kind === 'poi' || panel.kind === 'poi-edit' ? panel.poi : undefined}
            draft={panel.kind === 'poi-add' ? { ...panel, ...typedAt } : undefined}
            onMapClick={(lat, lng) => setPanel({ kind: 'poi-add', lat, lng })}
            // From the keyboard, focus follows to the POI's name, where reading goes on.
            onSelect={(poi, byKeyboard) => setPanel({ kind: 'poi', poi, focusTitle: byKeyboard })}
            onCentre={setCentre}
            layersOpen={layersOpen}
            onLayersOpen={setLayersOpen}
            pinStep={pinStep}
            onClearFilter={() => setFilter({ q: '', categories: [] })}
            position={position}
            onAddHere={() => void addHere()}
          />
          <aside id="side-panel" className={sheetFolded ? 'side folded' : 'side'} aria-label="Side panel" tabIndex={-1}>
            <button type="button" className="sheet-toggle" aria-expanded={!sheetFolded} aria-controls="side-panel" onClick={() => setSheetFolded((f) => !f)}>
              {sheetFolded ? 'Show panel' : 'Hide panel'}
            </button>
            {panel.kind === 'poi-add' && !clientId && clients.data && (
              <section className="panel" aria-label="Add POI">
                <h2>New POI</h2>
                <p>POIs belong to a client application, and there is none yet: create one, then click the map where the POI goes.</p>
                <div className="actions">
                  <button type="button" onClick={() => setPanel({ kind: 'clients' })}>
                    Create a client application
                  </button>
                </div>
              </section>
            )}
            {panel.kind === 'poi-add' && clientId && (
              <PoiForm
                key={`add-${panel.lat}-${panel.lng}`}
                clientId={clientId}
                position={{ lat: panel.lat, lng: panel.lng }}
                taken={panel.taken}
                // At my position too: the person stands there, and goes on with the name.
                focusFirst={panel.byKeyboard === true || panel.taken !== undefined}
                onPosition={(lat, lng) => setTypedAt({ lat, lng })}
                onSaved={(poi) => setPanel({ kind: 'poi', poi: poi.id, focusTitle: true })}
                onCancel={() => setPanel({ kind: 'search' })}
                onOpenPoi={(poi) => setPanel({ kind: 'poi', poi })}
              />
            )}
            {panel.kind === 'poi-here' && (
              <PositionWait position={position} onTake={takeFix} onCancel={() => setPanel({ kind: 'search' })} onSettings={() => setPanel({ kind: 'settings' })} />
            )}
            {panel.kind === 'poi' && clientId && (
              <PoiDetails
                clientId={clientId}
                poi={panel.poi}
                focusTitle={panel.focusTitle === true}
                onEdit={() => setPanel({ kind: 'poi-edit', poi: panel.poi })}
                onDeleted={() => setPanel({ kind: 'search' })}
                onClose={() => setPanel({ kind: 'search' })}
              />
            )}
            {panel.kind === 'poi-edit' && clientId && (
              <PoiForm
                key={`edit-${panel.poi}`}
                clientId={clientId}
                poiId={panel.poi}
                // Edit is always asked for from the details' button: typing goes on in the form, not on the page.
                focusFirst
                onSaved={(poi) => setPanel({ kind: 'poi', poi: poi.id, focusTitle: true })}
                onCancel={() => setPanel({ kind: 'poi', poi: panel.poi })}
                onOpenPoi={(poi) => setPanel({ kind: 'poi', poi })}
              />
            )}
            {tab && (!tab.needsClient || clientId) && tab.render(context)}
            {/* Not while the list is still coming (behind the console token's dialog, it had said so though clients existed). */}
            {tab?.needsClient && !clientId && (clients.data ? <p>No client application yet. Open “Client applications” to create one.</p> : <p className="panel">Loading…</p>)}
          </aside>
          <ShortcutsDialog open={helpOpen} onOpen={setHelpOpen} />
        </main>
      </div>
    </PositionContext.Provider>
  );
}
