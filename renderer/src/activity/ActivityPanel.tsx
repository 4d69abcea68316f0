import '../ui/panels.css';
import { useId, useState } from 'react';
import { CHANGE_ACTORS } from '../../../shared/api/replies';
import { ACTIVITY_ENTITIES } from '../../../shared/contract';
import type { ChangeReply } from '../../../shared/wire';
import { EarlierImports } from '../pois/EarlierImports';
import { FormError } from '../ui/Field';
import { fieldLines, subject, undoable, VERB, who } from './changeText';
import { useUndoChange } from './mutations';
import { ImportEntry, ImportUndoEntry } from './ImportEntry';
import { OpenPoi } from './OpenPoi';
import { useActivity, type ActivityFilter } from './queries';

const ACTORS: Record<(typeof CHANGE_ACTORS)[number], string> = {
  console: 'The console',
  member: 'Members',
  administrator: "The client's administrator",
  import: 'Imports',
  sync: 'Syncs',
  system: 'The service',
};
const ENTITIES: Record<(typeof ACTIVITY_ENTITIES)[number], string> = { poi: 'POIs', warning: 'Reports', category: 'Categories', member: 'Members' };

function Entry({ clientId, c, onOpen }: { clientId: string; c: ChangeReply; onOpen: (poi: number) => void }) {
  const undo = useUndoChange();
  const lines = c.op === 'update' ? fieldLines(c) : [];
  return (
    <li className="change">
      <p>
        <time dateTime={c.at}>{new Date(c.at).toLocaleString()}</time>: {subject(c)} {VERB[c.op]} by {who(c.actor)}
        {c.undoes !== null && <span className="muted"> (undo of change {c.undoes})</span>}
        <OpenPoi c={c} onOpen={onOpen} />
      </p>
      {lines.length > 0 && (
        <ul>
          {lines.map((l) => (
            <li key={l.key}>{l.text}</li>
          ))}
        </ul>
      )}
      <div className="actions">
        {undoable(c) && (
          <button
            type="button"
            disabled={undo.isPending || undo.isSuccess}
            aria-label={`${c.op === 'delete' ? 'Restore' : 'Undo'}: ${subject(c)} ${VERB[c.op]} (change ${c.seq})`}
            onClick={() => undo.mutate({ clientId, seq: c.seq })}
          >
            {c.op === 'delete' ? 'Restore' : 'Undo'}
          </button>
        )}
      </div>
      {undo.isSuccess && <p role="status">Undone.</p>}
      <FormError error={undo.errors.form} />
    </li>
  );
}

/** The client's last changes, newest first, by who and what, each with undo where it can be undone; an import is one entry. */
export function ActivityPanel({ clientId, onOpen }: { clientId: string; onOpen: (poi: number) => void }) {
  const titleId = useId();
  const [filter, setFilter] = useState<ActivityFilter>({});
  const activity = useActivity(clientId, filter);
  const entries = activity.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <section className="panel admin-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Activity</h2>
      {/* Imports with their kept reports (jobs), beside the changes they made. */}
      <EarlierImports clientId={clientId} current={undefined} />
      <div className="filters">
        <label>
          Who{' '}
          <select value={filter.actor ?? ''} onChange={(e) => setFilter({ ...filter, actor: CHANGE_ACTORS.find((a) => a === e.target.value) })}>
            <option value="">Anyone</option>
            {CHANGE_ACTORS.map((a) => (
              <option key={a} value={a}>
                {ACTORS[a]}
              </option>
            ))}
          </select>
        </label>
        <label>
          What{' '}
          <select value={filter.entity ?? ''} onChange={(e) => setFilter({ ...filter, entity: ACTIVITY_ENTITIES.find((x) => x === e.target.value) })}>
            <option value="">Everything</option>
            {ACTIVITY_ENTITIES.map((x) => (
              <option key={x} value={x}>
                {ENTITIES[x]}
              </option>
            ))}
          </select>
        </label>
      </div>
      {activity.isError && <FormError error={`Could not read the activity: ${activity.error.message}`} />}
      {activity.data && entries.length === 0 && <p>No changes{filter.actor || filter.entity ? ' of this kind' : ''} yet.</p>}
      {entries.length > 0 && (
        <ol className="activity" aria-label="Changes, newest first">
          {entries.map((e) =>
            e.kind === 'change' ? (
              <Entry key={e.change.seq} clientId={clientId} c={e.change} onOpen={onOpen} />
            ) : e.kind === 'import' ? (
              <ImportEntry key={e.seq} clientId={clientId} entry={e} onOpen={onOpen} />
            ) : (
              <ImportUndoEntry key={e.seq} clientId={clientId} entry={e} onOpen={onOpen} />
            ),
          )}
        </ol>
      )}
      {activity.hasNextPage && (
        <button type="button" disabled={activity.isFetchingNextPage} onClick={() => void activity.fetchNextPage()}>
          {activity.isFetchingNextPage ? 'Loading…' : 'Older changes'}
        </button>
      )}
    </section>
  );
}
