import { useEffect, useState } from 'react';
import { useClients } from './clients/queries';
import { PoiMap, type Focus } from './map/PoiMap';
import { PoiDetails } from './pois/PoiDetails';
import { PoiForm } from './pois/PoiForm';
import { isTab, TAB_KINDS, TAB_PANELS, type PanelContext } from './panels';
import { rememberClient, rememberedClient, type Panel } from './state';
import { OPEN_DIALOG, useConfirm } from './ui/Confirm';


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

  const confirm = useConfirm();
  // Escape closes what is open about a POI (its details, or the add / edit form, as Cancel does)
  // and gives focus back to the map, where the keyboard user came from.
  useEffect(() => {
    const onKey = async (e: KeyboardEvent): Promise<void> => {
      if (e.key !== 'Escape' || e.defaultPrevented || e.isComposing || document.querySelector(OPEN_DIALOG)) return;
      if (panel.kind !== 'poi' && panel.kind !== 'poi-add' && panel.kind !== 'poi-edit') return;
      // Typed work is not thrown away on a key press: a form with changes asks first.
      const question = { title: 'Discard the changes', text: 'Discard the changes to this POI?', yes: 'Discard changes', no: 'Keep editing', destructive: true };
      if (document.querySelector('form[data-changed="true"]') && !(await confirm(question))) return;
      setPanel(panel.kind === 'poi-edit' ? { kind: 'poi', poi: panel.poi } : { kind: 'search' });
      document.querySelector<HTMLElement>('.leaflet-container')?.focus();
    };
    const listener = (e: KeyboardEvent): void => void onKey(e);
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, [panel, confirm]);

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
        <nav aria-label="Panels">
          {TAB_KINDS.map((kind) => (
            <button key={kind} type="button" aria-pressed={panel.kind === kind} onClick={() => setPanel({ kind })}>
              {TAB_PANELS[kind].label}
            </button>
          ))}
        </nav>
      </header>
      <main className="workspace">
        {clientId ? (
          <PoiMap
            clientId={clientId}
            filter={filter}
            focus={focus}
            selected={panel.kind === 'poi' || panel.kind === 'poi-edit' ? panel.poi : undefined}
            draft={panel.kind === 'poi-add' ? panel : undefined}
            onMapClick={(lat, lng) => setPanel({ kind: 'poi-add', lat, lng })}
            onSelect={(poi) => setPanel({ kind: 'poi', poi })}
            onCentre={setCentre}
          />
        ) : (
          <div className="map-placeholder">
            {clients.isLoading ? 'Loading…' : 'Create a client application to start (Client applications panel).'}
          </div>
        )}
        <aside id="side-panel" className={sheetFolded ? 'side folded' : 'side'} aria-label="Side panel" tabIndex={-1}>
          <button type="button" className="sheet-toggle" aria-expanded={!sheetFolded} aria-controls="side-panel" onClick={() => setSheetFolded((f) => !f)}>
            {sheetFolded ? 'Show panel' : 'Hide panel'}
          </button>
          {panel.kind === 'poi-add' && clientId && (
            <PoiForm
              key={`add-${panel.lat}-${panel.lng}`}
              clientId={clientId}
              position={{ lat: panel.lat, lng: panel.lng }}
              focusFirst={panel.byKeyboard === true}
              onSaved={(poi) => setPanel({ kind: 'poi', poi: poi.id, saved: true })}
              onCancel={() => setPanel({ kind: 'search' })}
              onOpenPoi={(poi) => setPanel({ kind: 'poi', poi })}
            />
          )}
          {panel.kind === 'poi' && clientId && (
            <PoiDetails
              clientId={clientId}
              poi={panel.poi}
              focusTitle={panel.saved === true}
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
              onSaved={(poi) => setPanel({ kind: 'poi', poi: poi.id, saved: true })}
              onCancel={() => setPanel({ kind: 'poi', poi: panel.poi })}
              onOpenPoi={(poi) => setPanel({ kind: 'poi', poi })}
            />
          )}
          {tab && (!tab.needsClient || clientId) && tab.render(context)}
          {tab?.needsClient && !clientId && <p>No client application yet. Open “Client applications” to create one.</p>}
        </aside>
      </main>
    </div>
  );
}
