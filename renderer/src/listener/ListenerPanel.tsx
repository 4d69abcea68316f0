import '../ui/panels.css';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { ListenerScope, ListenerStatus } from '../../../shared/contract';
import { Checkbox } from '../ui/Checkbox';
import { Field, FormError } from '../ui/Field';
import { useConfigureListener } from './mutations';
import { useListener } from './queries';
import { CorsOrigins } from './CorsOrigins';
import { AppKeys, PhonePages } from './ConnectPhone';
import { FaultRules } from './FaultRules';
import { CertificateAuthority } from './CertificateAuthority';
import './listener.css';
import { revealFirstError } from '../ui/revealError';
import { ANY_ORIGIN, ANY_ORIGIN_WARNING } from '../../../shared/cors';

interface ListenerForm {
  enabled: boolean;
  port: string;
  scope: ListenerScope;
  corsOrigins: string[];
  /** Empty: HTTP only. */
  httpsPort: string;
  faults: string[];
}

const SCOPES = [
  { scope: 'local', label: 'This computer only', hint: 'Only programs on this computer can reach it (127.0.0.1).' },
  {
    scope: 'lan',
    label: 'Local network',
    hint: 'Phones and devices on your network can reach it. It speaks plain HTTP, and HTTPS too when an HTTPS port is set: use plain HTTP on networks you trust.',
  },
] as const satisfies ReadonlyArray<{ scope: ListenerScope; label: string; hint: string }>;

/**
 * The local HTTP API listener: where it can be reached (and a phone's way there), the selected
 * client's keys for the developer's app, and switching it on, off or elsewhere.
 */
export function ListenerPanel({ clientId }: { clientId: string | undefined }) {
  const titleId = useId();
  const listener = useListener();
  // Kept while a poll fails, so that the form (and what is typed in it) stays.
  const status = listener.data;
  return (
    <section className="panel admin-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>
        Listener{status?.state === 'listening' && status.faults?.length ? <span className="tag faults-on"> Faults on</span> : null}
      </h2>
      <p className="note">The local HTTP listener serves the platform's API (paths under /1/) to phones, test devices and old clients.</p>
      {listener.isPending && <p>Loading the listener's state…</p>}
      {listener.isError && <FormError error={`Could not read the listener's state: ${listener.error.message}`} />}
      {status && (
        <>
          <ListenerState status={status} />
          <AppKeys clientId={clientId} />
          <CertificateAuthority fingerprint={status.caFingerprint} />
          {status.configurable ? (
            <ConfigureForm status={status} />
          ) : (
            <p className="note">
              This listener was started from the command line (<code>serve</code>), so it cannot be changed here. Stop it there, or start it with other
              options, to change it.
            </p>
          )}
        </>
      )}
    </section>
  );
}

function ListenerState({ status }: { status: ListenerStatus }) {
  return (
    <div className="panel-block">
      <p>
        State:{' '}
        <strong role="status" className={`state state-${status.state}`}>
          {status.state}
        </strong>
      </p>
      {status.error && (
        <p className="form-error" role="alert">
          {status.error}
        </p>
      )}
      <p>
        Port {status.port}
        {status.httpsPort ? `, HTTPS port ${status.httpsPort}` : ''}, reachable from {status.scope === 'lan' ? 'the local network' : 'this computer only'}
        {status.enabled ? '' : ' (switched off)'}.
      </p>
      <h3>Addresses</h3>
      {status.addresses.length === 0 && <p className="note">None: the listener is not listening.</p>}
      <ul className="addresses" data-testid="listener-addresses">
        {status.addresses.map((address) => (
          <li key={address}>
            <code>{address}</code>
          </li>
        ))}
      </ul>
      <PhonePages status={status} />
      <GuardsState status={status} />
    </div>
  );
}

/** CORS and fault rules in force (docs/devices.md#the-listeners-guards); nothing when neither is on. */
function GuardsState({ status }: { status: ListenerStatus }) {
  const origins = status.corsOrigins ?? [];
  const faults = status.faults ?? [];
  return (
    <>
      {origins.length > 0 && (
        <p>
          CORS: web pages of <code>{origins.join(', ')}</code> may call the API.
        </p>
      )}
      {origins.includes(ANY_ORIGIN) && <p className="danger">{ANY_ORIGIN_WARNING}</p>}
      {faults.length > 0 && (
        <>
          <h3>{status.state === 'listening' ? 'Faults on' : 'Fault rules'}</h3>
          <p className="note">
            {status.state === 'listening'
              ? "These rules slow down, fail or drop requests on purpose, to test an app's error paths:"
              : 'These rules will slow down, fail or drop requests on purpose once the listener is on:'}
          </p>
          <ul className="addresses" data-testid="listener-faults">
            {faults.map((rule) => (
              <li key={rule}>
                <code>{rule}</code>
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

const sameList = (a: readonly string[], b: readonly string[] | undefined): boolean => a.length === (b ?? []).length && a.every((x, i) => x === b?.[i]);

/** Whether the form holds changes the listener does not use yet: its lists are edited in place, and look live. */
function unapplied(form: ListenerForm, status: ListenerStatus): boolean {
  const httpsPort = status.httpsPort ? String(status.httpsPort) : '';
  return (
    form.enabled !== status.enabled ||
    form.port !== String(status.port) ||
    form.scope !== status.scope ||
    form.httpsPort !== httpsPort ||
    !sameList(form.corsOrigins, status.corsOrigins) ||
    !sameList(form.faults, status.faults)
  );
}

function ConfigureForm({ status }: { status: ListenerStatus }) {
  const configure = useConfigureListener();
  // Initialised once from the status; the polling that follows does not overwrite what is typed.
  const [form, setForm] = useState<ListenerForm>(() => ({
    enabled: status.enabled,
    port: String(status.port),
    scope: status.scope,
    corsOrigins: status.corsOrigins ?? [],
    httpsPort: status.httpsPort ? String(status.httpsPort) : '',
    faults: status.faults ?? [],
  }));
  const errors = configure.errors;
  const scopeHintId = useId();
  const formRef = useRef<HTMLFormElement>(null);
  // A refusal may name a field far above Apply (the HTTPS port, an origin): go there.
  useEffect(() => {
    if (errors.attempt > 0) revealFirstError(formRef.current);
  }, [errors.attempt]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (configure.isPending) return;
    const port = form.port.trim() === '' ? 0 : Number(form.port);
    const httpsPort = form.httpsPort.trim() === '' ? null : Number(form.httpsPort);
    configure.submit({ enabled: form.enabled, port, scope: form.scope, corsOrigins: form.corsOrigins, httpsPort, faults: form.faults });
  };

  return (
    <form ref={formRef} aria-label="Change the listener" className="panel-form" onSubmit={submit} noValidate>
      <h3>Change the listener</h3>
      <FormError error={errors.form ?? errors.field('enabled') ?? errors.field('scope')} />
      <Checkbox label="Listener on" name="enabled" checked={form.enabled} onChange={(enabled) => setForm((f) => ({ ...f, enabled }))} />
      <Field
        label="Port"
        name="port"
        type="number"
        step="1"
        value={form.port}
        onChange={(port) => setForm((f) => ({ ...f, port }))}
        error={errors.field('port')}
        required
        hint="1 to 65535. The platform's clients usually use 8080."
      />
      <Field
        label="HTTPS port"
        name="httpsPort"
        type="number"
        step="1"
        value={form.httpsPort}
        onChange={(httpsPort) => setForm((f) => ({ ...f, httpsPort }))}
        error={errors.field('httpsPort')}
        hint="Optional: also serve over HTTPS on this port (for example 8443), with a certificate phones can trust. Leave it empty for plain HTTP only."
      />
      <fieldset className="choices" aria-describedby={scopeHintId}>
        <legend>Reachable from</legend>
        {SCOPES.map((option) => (
          <label key={option.scope} className="check">
            <input
              type="radio"
              name="scope"
              value={option.scope}
              checked={form.scope === option.scope}
              onChange={() => setForm((f) => ({ ...f, scope: option.scope }))}
            />{' '}
            {option.label}
          </label>
        ))}
        <p className="hint" id={scopeHintId}>
          {SCOPES.find((o) => o.scope === form.scope)?.hint}
        </p>
      </fieldset>
      <CorsOrigins origins={form.corsOrigins} onChange={(corsOrigins) => setForm((f) => ({ ...f, corsOrigins }))} error={errors.field('corsOrigins')} />
      <FaultRules rules={form.faults} onChange={(faults) => setForm((f) => ({ ...f, faults }))} error={errors.field('faults')} />
      {unapplied(form, status) && (
        <p className="note not-applied">Not applied yet: the listener still works as before. Press Apply to use these settings.</p>
      )}
      <div className="actions">
        <button type="submit">Apply</button>
      </div>
      {configure.isPending && <p className="note">Applying…</p>}
      <p role="status" className="done">
        {configure.isSuccess ? 'Applied.' : ''}
      </p>
    </form>
  );
}
