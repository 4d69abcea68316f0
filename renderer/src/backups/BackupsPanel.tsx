import '../ui/panels.css';
import { useId, useState, type FormEvent } from 'react';
import type { BackupInfo, BackupKind } from '../../../shared/backups';
import { useConfirm } from '../ui/Confirm';
import { Field, FormError } from '../ui/Field';
import { readableDate } from '../ui/format';
import { useConfigureBackups, useCreateBackup, useRemoveBackup, useRestore } from './mutations';
import { useBackups } from './queries';
import { RestoreProgress } from './RestoreProgress';

const KIND: Record<BackupKind, string> = { manual: 'taken by hand', daily: 'daily', 'before-restore': 'before a restore' };

const size = (bytes: number): string => (bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(0)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

/** Backups of the database: take one now, restore one, and how many daily ones to keep. */
export function BackupsPanel() {
  const titleId = useId();
  const backups = useBackups();
  const create = useCreateBackup();
  const restore = useRestore();
  return (
    <section className="panel admin-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Backups</h2>
      <p className="note">
        Copies of the whole database, taken while the service keeps answering{backups.data?.folder ? <>, in <code>{backups.data.folder}</code></> : null}.
        Restoring one first backs up the data it replaces.
      </p>
      <div className="actions">
        <button type="button" disabled={create.isPending || restore.running} onClick={() => create.mutate({})}>
          {create.isPending ? 'Backing up…' : 'Back up now'}
        </button>
      </div>
      <FormError error={create.errors.form} />
      <p role="status" className="done">
        {create.isSuccess ? `Backup taken: ${readableDate(create.data.takenAt)}, ${size(create.data.bytes)}` : ''}
      </p>
      <FormError error={restore.refused} />
      <RestoreProgress job={restore.job} onCancel={restore.cancel} />
      {backups.isPending && <p>Loading backups…</p>}
      {backups.isError && <FormError error={`Could not list the backups: ${backups.error.message}`} />}
      {backups.data &&
        (backups.data.backups.length === 0 ? (
          <p className="note">No backup yet.</p>
        ) : (
          <ul className="items compact" aria-label="Backups">
            {backups.data.backups.map((b) => (
              <BackupItem key={b.name} backup={b} busy={restore.running || create.isPending} onRestore={() => restore.start(b.name)} />
            ))}
          </ul>
        ))}
      {backups.data && <KeepDaily key={backups.data.keepDaily} initial={backups.data.keepDaily} />}
    </section>
  );
}

function BackupItem({ backup, busy, onRestore }: { backup: BackupInfo; busy: boolean; onRestore: () => void }) {
  const remove = useRemoveBackup();
  const confirm = useConfirm();
  const when = readableDate(backup.takenAt);
  // The kind too: a daily backup and one taken by hand can share a second, and each button must be told apart by its name.
  const which = `the backup of ${when} (${KIND[backup.kind]})`;
  return (
    <li className="item">
      <div className="item-main">
        <strong>{when}</strong>
        <span className="tag">{KIND[backup.kind]}</span>
        <span className="count">{size(backup.bytes)}</span>
      </div>
      <div className="actions">
        <button
          type="button"
          aria-label={`Restore ${which}`}
          disabled={busy}
          onClick={() => {
            const question = { title: 'Restore a backup', text: `Replace all the data with the backup of ${when}? The current data is backed up first.`, yes: 'Restore', no: 'Keep the current data', destructive: true };
            void confirm(question).then((yes) => yes && onRestore());
          }}
        >
          Restore
        </button>
        <button
          type="button"
          aria-label={`Remove ${which}`}
          disabled={busy || remove.isPending}
          onClick={() => {
            const question = { title: 'Remove a backup', text: `Remove the backup of ${when} from this computer?`, yes: 'Remove backup', no: 'Keep it', destructive: true };
            void confirm(question).then((yes) => yes && remove.mutate({ name: backup.name }));
          }}
        >
          Remove
        </button>
      </div>
      <FormError error={remove.errors.form} />
    </li>
  );
}

function KeepDaily({ initial }: { initial: number }) {
  const configure = useConfigureBackups();
  const [keep, setKeep] = useState(String(initial));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (configure.isPending) return;
    // Not a number: NaN, which the schema refuses under the field.
    configure.submit({ keepDaily: keep.trim() === '' ? Number.NaN : Number(keep) });
  };
  return (
    <form aria-label="Daily backups" className="panel-form" onSubmit={submit} noValidate>
      <h3>Daily backups</h3>
      <FormError error={configure.errors.form} />
      <Field
        label="Daily backups to keep"
        name="keepDaily"
        type="number"
        step="1"
        value={keep}
        onChange={setKeep}
        error={configure.errors.field('keepDaily')}
        hint="One is taken a day while the application runs; older daily ones beyond this number are removed. 0 takes none. Backups taken by hand and before a restore are kept until you remove them."
      />
      <div className="actions">
        <button type="submit">Save</button>
      </div>
      <p role="status" className="done">
        {configure.isSuccess ? 'Saved' : ''}
      </p>
    </form>
  );
}
