import { useState, type FormEvent } from 'react';
import { DEFAULT_PORTS, isReceiver, LOCATION_SOURCES, type LocationSettings, type LocationSource, type ReceiverStatus } from '../../../shared/location';
import { FormProblems } from '../ui/ErrorSummary';
import { Field, FormError } from '../ui/Field';
import { useConfigureLocation } from './mutations';
import { useLocationStatus } from './queries';
import { positionLine } from './PositionCorner';
import { usePosition } from './useFix';
import { useNow } from './useNow';

const LABEL = { source: 'Location source', host: 'Receiver address', port: 'Port', wantAccuracyM: 'Accuracy to take without asking (m)' } as const;

/** Each source as the person chooses it (shared/location.ts says what each is). */
const SOURCE_WORDS: Record<LocationSource, { name: string; hint: string }> = {
  none: { name: 'None', hint: 'POIs are placed by clicking the map.' },
  device: { name: 'This device’s location', hint: 'The phone’s, tablet’s or computer’s own (GNSS where it has one). The browser asks once for permission.' },
  'nmea-tcp': { name: 'GNSS receiver, NMEA over TCP', hint: 'A receiver or a phone app that streams NMEA 0183 sentences over the network (GGA, RMC, GSA, GST are read).' },
  gpsd: { name: 'gpsd', hint: 'gpsd on this computer or the network (port 2947), speaking to the receiver.' },
};

/** What a receiver's stream gave: which sentences (or gpsd classes) were read, and how many lines were not. */
function receiverLine(r: ReceiverStatus | null): string | undefined {
  if (!r || !r.connected) return undefined;
  const read = r.used.length > 0 ? `Reading ${r.used.join(', ')}` : 'Connected; nothing read yet';
  return `${read}; ${r.ignoredLines.toLocaleString('en')} ${r.ignoredLines === 1 ? 'line' : 'lines'} ignored (not a sentence, or a wrong checksum).`;
}

/** Where "Add at my position" takes its position from, and how good a fix must be to be taken without asking. */
export function LocationSettingsForm() {
  const status = useLocationStatus();
  if (!status.data) return status.isError ? <FormError error={`Could not read the location setting: ${status.error.message}`} /> : null;
  return <Form initial={status.data.settings} />;
}

function Form({ initial }: { initial: LocationSettings }) {
  const save = useConfigureLocation();
  const [form, setForm] = useState({ ...initial, port: String(initial.port), wantAccuracyM: String(initial.wantAccuracyM) });
  const position = usePosition();
  const now = useNow(1_000);
  const choose = (source: LocationSource): void =>
    // The port follows the source while it is the other's default: gpsd's is not NMEA's.
    setForm((f) => ({ ...f, source, port: isReceiver(source) && Object.values(DEFAULT_PORTS).map(String).includes(f.port) ? String(DEFAULT_PORTS[source]) : f.port }));
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (save.isPending) return;
    const number = (s: string): number => (s.trim() === '' ? Number.NaN : Number(s));
    save.submit({ source: form.source, host: form.host.trim(), port: number(form.port), wantAccuracyM: number(form.wantAccuracyM) });
  };
  const receiver = isReceiver(form.source);
  const receiverNow = receiverLine(useLocationStatus().data?.receiver ?? null);
  return (
    <form aria-label="Location source" className="panel-form" onSubmit={submit} noValidate>
      <h3>My position</h3>
      <p className="note">“Add at my position” on the map (key P) opens a new POI where you stand, with its accuracy and height from this source.</p>
      <FormProblems errors={save.errors} labels={LABEL} />
      <FormError error={save.errors.form} />
      <fieldset className="choices">
        <legend>{LABEL.source}</legend>
        {LOCATION_SOURCES.map((source) => (
          <div className="choice" key={source}>
            <label>
              <input type="radio" name="location-source" checked={form.source === source} onChange={() => choose(source)} aria-describedby={`location-${source}-hint`} />
              {SOURCE_WORDS[source].name}
            </label>
            <div className="hint" id={`location-${source}-hint`}>
              {SOURCE_WORDS[source].hint}
            </div>
          </div>
        ))}
      </fieldset>
      {receiver && (
        <div className="pair">
          <Field label={LABEL.host} name="host" value={form.host} onChange={(host) => setForm((f) => ({ ...f, host }))} error={save.errors.field('host')} hint="Its IP address or name, like 192.168.1.20" />
          <Field label={LABEL.port} name="port" type="number" step="1" value={form.port} onChange={(port) => setForm((f) => ({ ...f, port }))} error={save.errors.field('port')} />
        </div>
      )}
      <Field
        label={LABEL.wantAccuracyM}
        name="wantAccuracyM"
        type="number"
        step="any"
        value={form.wantAccuracyM}
        onChange={(wantAccuracyM) => setForm((f) => ({ ...f, wantAccuracyM }))}
        error={save.errors.field('wantAccuracyM')}
        hint="A worse or older fix is shown as such: you can wait for a better one or take it."
      />
      <div className="actions">
        <button type="submit">Save location source</button>
      </div>
      <p role="status" className="done">
        {save.isSuccess ? 'Location source saved' : ''}
      </p>
      {position.settings && position.settings.source !== 'none' && <p className="note location-now">Now: {positionLine(position, now, position.settings.wantAccuracyM)}</p>}
      {receiverNow && <p className="note location-read">{receiverNow}</p>}
    </form>
  );
}
