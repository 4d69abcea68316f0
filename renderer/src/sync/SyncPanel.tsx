import '../ui/panels.css';
import { useId, useState, type FormEvent } from 'react';
import type { ConflictReply } from '../../../shared/sync';
import { Field, FormError } from '../ui/Field';
import { readableDate } from '../ui/format';
import { useConfigureSync, useResolveConflict, useSyncNow } from './mutations';
import { useSyncConflicts, useSyncStatus } from './queries';

const shown = (v: unknown): string => (v === null || v === undefined || v === '' ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** This desktop and the central store: where it syncs, when it last did, what waits, and the conflicts to resolve. */
export function SyncPanel() {
  const titleId = useId();
  const status = useSyncStatus();
  const now = useSyncNow();
  const s = status.data;
  const conflicts = useSyncConflicts(s?.configured === true);
  return (
    <section className="panel admin-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Sync</h2>
      <p className="note">
        Share this desktop’s data with the others through a central store (PostgreSQL). Work goes on offline; changes wait here and go at the next sync.
      </p>
      {status.isError && <FormError error={`Could not read the sync status: ${status.error.message}`} />}
      {s && (
        <dl className="facts" aria-label="Sync status">
          <dt>Central</dt>
          <dd>{s.url ?? 'not set'}</dd>
          <dt>Last sync</dt>
          <dd>{s.lastSync ? readableDate(s.lastSync) : 'never'}</dd>
          <dt>Changes waiting to be sent</dt>
          <dd>{s.waiting}</dd>
          {s.nextAttempt && (
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
          ? `Synced: ${s.lastReport.pushed} sent, ${s.lastReport.pulled} received${s.lastReport.conflicts ? `, ${s.lastReport.conflicts} conflicts` : ''}.`
          : ''}
      </p>
      <FormError error={now.errors.form ?? (s?.lastError && !now.isPending ? `The last sync failed: ${s.lastError}` : undefined)} />
      {s && <Connect initialUrl={s.url ?? ''} configured={s.configured} />}
      {s?.configured && conflicts.data && <Conflicts conflicts={conflicts.data} />}
      {conflicts.isError && <FormError error={`Could not read the conflicts: ${conflicts.error.message}`} />}
    </section>
  );
}

function Connect({ initialUrl, configured }: { initialUrl: string; configured: boolean }) {
  const configure = useConfigureSync();
  const [url, setUrl] = useState(initialUrl);
  const [credential, setCredential] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!configure.isPending) configure.submit({ url: url.trim(), credential: credential.trim() }, { onSuccess: () => setCredential('') });
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
      <div className="actions">
        <button type="submit" disabled={configure.isPending}>
          {configure.isPending ? 'Checking with the central…' : 'Connect'}
        </button>
      </div>
      {configure.isSuccess && <p role="status" className="done">Connected: the central answered and knows this device.</p>}
    </form>
  );
}

function Conflicts({ conflicts }: { conflicts: ConflictReply[] }) {
  const titleId = useId();
  return (
    <section aria-labelledby={titleId}>
      <h3 id={titleId}>Conflicts to resolve ({conflicts.length})</h3>
      {conflicts.length === 0 ? (
        <p className="note">None.</p>
      ) : (
        <ul className="conflicts" aria-label="Conflicts, oldest first">
          {conflicts.map((c) => (
            <ConflictItem key={c.id} c={c} />
          ))}
        </ul>
      )}
    </section>
  );
}

function ConflictItem({ c }: { c: ConflictReply }) {
  const resolve = useResolveConflict();
  const what = `${c.entity === 'poi' ? 'POI' : c.entity} “${c.label ?? c.uuid.slice(0, 8)}”`;
  const subject = c.field === null ? `${what}: edited on one side, deleted on the other` : `${what}, ${c.field}`;
  return (
    <li className="conflict">
      <p>
        <strong>{subject}</strong> <span className="muted">({readableDate(c.at)}; the central kept {c.kept === 'mine' ? 'the later value' : 'its own value'})</span>
      </p>
      <table className="diff">
        <caption className="visually-hidden">Values of {subject}</caption>
        <tbody>
          <tr>
            <th scope="row">Before both</th>
            <td>{shown(c.base)}</td>
          </tr>
          <tr>
            <th scope="row">Pushed last (mine)</th>
            <td>{shown(c.mine)}</td>
          </tr>
          <tr>
            <th scope="row">On the central before (theirs)</th>
            <td>{shown(c.theirs)}</td>
          </tr>
        </tbody>
      </table>
      <div className="actions">
        <button type="button" disabled={resolve.isPending} aria-label={`Keep mine: ${subject}`} onClick={() => resolve.mutate({ id: c.id, keep: 'mine' })}>
          Keep mine
        </button>
        <button type="button" disabled={resolve.isPending} aria-label={`Keep theirs: ${subject}`} onClick={() => resolve.mutate({ id: c.id, keep: 'theirs' })}>
          Keep theirs
        </button>
      </div>
      <FormError error={resolve.errors.form} />
    </li>
  );
}
