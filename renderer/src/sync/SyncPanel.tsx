import '../ui/panels.css';
import { useId, useState, type FormEvent } from 'react';
import type { SyncStatus } from '../../../shared/contract';
import { Field, FormError } from '../ui/Field';
import { Conflicts } from './Conflicts';
import { readableDate } from '../ui/format';
import { useConfigureSync, useSyncNow } from './mutations';
import { useSyncConflicts, useSyncStatus } from './queries';

/** This desktop and the central store: where it syncs, when it last did, what waits, and the conflicts to resolve. */
export function SyncPanel() {
  const titleId = useId();
  const status = useSyncStatus();
  const now = useSyncNow();
  const s = status.data;
  const conflicts = useSyncConflicts(s?.configured === true);
  return (
    <section className="panel admin-panel sync-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Sync</h2>
      <p className="note">
        Share this desktop’s data with the others through a central store (PostgreSQL). Work goes on offline; changes wait here and go at the next sync.
      </p>
      {status.isError && <FormError error={`Could not read the sync status: ${status.error.message}`} />}
      {s?.insecureHttp && (
        <p className="danger" role="alert">
          This desktop sends its device credential over plain http to {s.url}: anyone on the network between can read it and sync as this desktop. Use the
          central’s https address as soon as you can.
        </p>
      )}
      {s && (
        <dl className="facts" aria-label="Sync status">
          <dt>Central</dt>
          <dd>{s.url ?? 'not set'}</dd>
          <dt>Last sync</dt>
          <dd>{s.lastSync ? readableDate(s.lastSync) : 'never'}</dd>
          <dt>Changes waiting to be sent</dt>
          <dd>{s.waiting}</dd>
          {/* The agent's timer runs without a central too (it looks again for one): no sync is due then. */}
          {s.configured && s.nextAttempt && (
            <>
              <dt>Next automatic sync</dt>
              <dd>{readableDate(s.nextAttempt)}</dd>
            </>
          )}
        </dl>
      )}
      {s?.configured && (
        <div className="actions">
          <button type="button" disabled={now.isPending || s.running} onClick={() => now.mutate({})}>
            {now.isPending || s.running ? 'Syncing…' : 'Sync now'}
          </button>
        </div>
      )}
      {s?.running && s.progress?.total ? (
        <progress max={s.progress.total} value={s.progress.done} aria-label="Receiving from the central">
          {s.progress.done} of {s.progress.total}
        </progress>
      ) : null}
      <p role="status" className="done">
        {s?.running && s.progress
          ? `${s.progress.step === 'push' ? 'Sending' : 'Receiving'}: ${s.progress.done.toLocaleString()}${s.progress.total ? ` of ${s.progress.total.toLocaleString()}` : ' so far'}…`
          : ''}
        {!s?.running && now.isSuccess && s?.lastReport
          ? `Synced: ${s.lastReport.pushed} sent, ${s.lastReport.pulled} received${s.lastReport.conflicts ? `, ${s.lastReport.conflicts} conflicts` : ''}${s.lastReport.refused ? `, ${s.lastReport.refused} refused by the central` : ''}.${s.lastReport.restored ? ' This data folder was restored from a backup: what the central had from it came back.' : ''}`
          : ''}
      </p>
      <FormError error={now.errors.form ?? (s?.lastError && !now.isPending ? `The last sync failed: ${s.lastError}` : undefined)} />
      {s && <Connect initialUrl={s.url ?? ''} configured={s.configured} />}
      {s?.configured && conflicts.data && <Conflicts conflicts={conflicts.data} />}
      {s && <Problems status={s} />}
      {conflicts.isError && <FormError error={`Could not read the conflicts: ${conflicts.error.message}`} />}
    </section>
  );
}

function Connect({ initialUrl, configured }: { initialUrl: string; configured: boolean }) {
  const configure = useConfigureSync();
  const [url, setUrl] = useState(initialUrl);
  const [credential, setCredential] = useState('');
  const [insecure, setInsecure] = useState(false);
  const plainToAnother = /^http:\/\//i.test(url.trim()) && !/^http:\/\/(localhost|127\.[\d.]+|\[::1\])(:\d+)?(\/|$)/i.test(url.trim());
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!configure.isPending) configure.submit({ url: url.trim(), credential: credential.trim(), insecureHttp: plainToAnother && insecure }, { onSuccess: () => setCredential('') });
  };
  return (
    <form aria-label="Central store" className="panel-form" onSubmit={submit} noValidate>
      <h3>{configured ? 'Change the central' : 'Connect to a central'}</h3>
      <FormError error={configure.errors.form} />
      <Field label="Central address" name="url" value={url} onChange={setUrl} error={configure.errors.field('url')} hint="The sync service’s https:// address, from your administrator." />
      <Field
        label="Device credential"
        name="credential"
        type="password"
        value={credential}
        onChange={setCredential}
        error={configure.errors.field('credential')}
        hint="DEVICE_ID.SECRET, as npm run cli -- central device add printed it. Kept in this data folder (readable by you only), never shown again."
      />
      {plainToAnother && (
        <label className="check danger">
          <input type="checkbox" checked={insecure} onChange={(e) => setInsecure(e.target.checked)} />
          Send the credential over plain http anyway (anyone on the network between can read it; only on a network you trust)
        </label>
      )}
      <div className="actions">
        <button type="submit" disabled={configure.isPending}>
          {configure.isPending ? 'Checking with the central…' : 'Connect'}
        </button>
      </div>
      {configure.isSuccess && <p role="status" className="done">Connected: the central answered and knows this device.</p>}
    </form>
  );
}

/** What could not go through, with the reason for each: rows received and set aside, changes the central refused. */
function Problems({ status }: { status: SyncStatus }) {
  const titleId = useId();
  if (status.setAsideCount === 0 && status.refusedCount === 0) return null;
  return (
    <section aria-labelledby={titleId}>
      <h3 id={titleId}>Not applied</h3>
      {status.setAsideCount > 0 && (
        <>
          <p className="note">
            Received from the central but kept aside here ({status.setAsideCount}): the rest of the sync went on, and these are tried again at every sync.
          </p>
          <ul aria-label="Rows kept aside">
            {status.setAside.map((r) => (
              <li key={`${r.entity}:${r.uuid}`}>
                {r.entity} “{r.label ?? r.uuid.slice(0, 8)}”: {r.reason}
              </li>
            ))}
          </ul>
        </>
      )}
      {status.refusedCount > 0 && (
        <>
          <p className="note">Changes of this desktop the central refused ({status.refusedCount}): they stay here; change the row again to send it anew.</p>
          <ul aria-label="Changes the central refused">
            {status.refused.map((r) => (
              <li key={r.op}>
                {r.entity} {r.uuid.slice(0, 8)}: {r.message}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
