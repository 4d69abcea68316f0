import '../ui/panels.css';
import { useId, useState, type FormEvent } from 'react';
import { DEFAULT_TILE_ATTRIBUTION, DEFAULT_TILE_ATTRIBUTION_URL, DEFAULT_TILE_URL, type Settings } from '../../../shared/contract';
import { tileImageSource } from '../../../shared/tiles';
import { FormProblems } from '../ui/ErrorSummary';
import { Field, FormError } from '../ui/Field';
import { useClearTileCache, useSaveSettings } from './mutations';
import { LocationSettingsForm } from '../location/LocationSettingsForm';
import { useSettings, useTileCacheStatus } from './queries';

const LABEL = { tileUrl: 'Tile URL', tileAttribution: 'Tile attribution', tileAttributionUrl: 'Attribution link', tileCacheMb: 'Offline tile cache (MB)' } as const;

const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** What the cache holds now, and a way to empty it. */
function TileCache() {
  const status = useTileCacheStatus();
  const clear = useClearTileCache();
  if (!status.data) return null;
  const { tiles, bytes, limitBytes } = status.data;
  return (
    <div className="tile-cache">
      <p role="status">
        {tiles} tiles kept for offline use, {megabytes(bytes)} of {megabytes(limitBytes)}.
      </p>
      <button type="button" disabled={clear.isPending || tiles === 0} onClick={() => clear.mutate({})}>
        Clear the tile cache
      </button>
      <FormError error={clear.errors.form} />
    </div>
  );
}

/** The map's tile server: where the background map comes from, and whom it credits. */
export function SettingsPanel() {
  const titleId = useId();
  const settings = useSettings();
  return (
    <section className="panel admin-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Settings</h2>
      {settings.isPending && <p>Loading settings…</p>}
      {settings.isError && <FormError error={`Could not read the settings: ${settings.error.message}`} />}
      {settings.data && <SettingsForm initial={settings.data} />}
      <LocationSettingsForm />
    </section>
  );
}

function SettingsForm({ initial }: { initial: Settings }) {
  const save = useSaveSettings();
  // Initialised once from the stored settings.
  const [form, setForm] = useState<Omit<Settings, 'tileCacheMb'> & { tileCacheMb: string }>({ ...initial, tileCacheMb: String(initial.tileCacheMb) });
  const errors = save.errors;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (save.isPending) return;
    const next = {
      tileUrl: form.tileUrl.trim(),
      tileAttribution: form.tileAttribution.trim(),
      tileAttributionUrl: form.tileAttributionUrl.trim(),
      // Not a number: NaN, which the schema refuses under the field.
      tileCacheMb: form.tileCacheMb.trim() === '' ? Number.NaN : Number(form.tileCacheMb),
    };
    save.submit(next, {
      // The page's Content-Security-Policy names the tile server: a new server needs a new page.
      onSuccess: () => {
        if (tileImageSource(next.tileUrl) !== tileImageSource(initial.tileUrl)) window.location.reload();
      },
    });
  };

  return (
    <form aria-label="Map tiles" className="panel-form" onSubmit={submit} noValidate>
      <h3>Map tiles</h3>
      <p className="note">
        The map draws its background from a tile server. When tiles cannot load (offline, or a wrong URL), the map falls back to a world basemap bundled
        with the application, so POIs can always be placed.
      </p>
      <FormProblems errors={errors} labels={LABEL} />
      <FormError error={errors.form} />
      <Field
        label={LABEL.tileUrl}
        name="tileUrl"
        value={form.tileUrl}
        onChange={(tileUrl) => setForm((f) => ({ ...f, tileUrl }))}
        error={errors.field('tileUrl')}
        required
        hint={
          <>
            A URL template with <code>{'{z}'}</code>, <code>{'{x}'}</code> and <code>{'{y}'}</code>, like <code>{DEFAULT_TILE_URL}</code>: https, or
            http for a tile server on this computer or the local network (<code>http://192.168.1.20:8080/{'{z}/{x}/{y}'}.png</code>).
          </>
        }
      />
      <Field
        label={LABEL.tileAttribution}
        name="tileAttribution"
        value={form.tileAttribution}
        onChange={(tileAttribution) => setForm((f) => ({ ...f, tileAttribution }))}
        error={errors.field('tileAttribution')}
        hint="The credit the tile provider asks for, as plain text, shown on the map."
      />
      <Field
        label={LABEL.tileAttributionUrl}
        name="tileAttributionUrl"
        value={form.tileAttributionUrl}
        onChange={(tileAttributionUrl) => setForm((f) => ({ ...f, tileAttributionUrl }))}
        error={errors.field('tileAttributionUrl')}
        hint="Optional: the page the credit links to (http or https)."
      />
      <Field
        label={LABEL.tileCacheMb}
        name="tileCacheMb"
        type="number"
        step="1"
        value={form.tileCacheMb}
        onChange={(tileCacheMb) => setForm((f) => ({ ...f, tileCacheMb }))}
        error={errors.field('tileCacheMb')}
        hint="Tiles seen online are kept in the data folder, up to this size, and drawn from there when the network is gone. 0 keeps none."
      />
      <TileCache />
      <div className="actions">
        <button type="submit">Save settings</button>
        <button
          type="button"
          onClick={() => setForm((f) => ({ ...f, tileUrl: DEFAULT_TILE_URL, tileAttribution: DEFAULT_TILE_ATTRIBUTION, tileAttributionUrl: DEFAULT_TILE_ATTRIBUTION_URL }))}
        >
          Use OpenStreetMap defaults
        </button>
      </div>
      <p role="status" className="done">
        {save.isSuccess ? 'Settings saved (a new tile server reloads the page to allow its images)' : ''}
      </p>
    </form>
  );
}
