import { useState } from 'react';
import type { ActivityEntry, ImportActivity } from '../../../shared/activity';
import { FormError } from '../ui/Field';
import { subject, VERB } from './changeText';
import { OpenPoi } from './OpenPoi';
import { useImportChanges } from './queries';
import { UndoImport } from './UndoImport';

const count = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** "pois.csv", or the import's id when its job (and so its file's name) is no longer kept. */
const fileOf = (i: ImportActivity): string => i.fileName ?? `a file (import ${i.id})`;

/** What an import did, in a sentence: "98 POIs added, 1 updated, 2 categories created". */
function did(i: ImportActivity): string {
  const parts = [`${count(i.added, 'POI')} added`, `${i.updated.toLocaleString('en')} updated`];
  if (i.categories > 0) parts.push(`${count(i.categories, 'category', 'categories')} created`);
  return parts.join(', ');
}

/**
 * An import's changes (or those that reversed it), listed only once opened, a page at a time: an
 * import of 100,000 POIs is not read to show the Activity panel.
 */
function ImportChanges({ clientId, importId, part, summary, onOpen }: { clientId: string; importId: string; part: 'import' | 'undo'; summary: string; onOpen: (poi: number) => void }) {
  const [open, setOpen] = useState(false);
  const changes = useImportChanges(clientId, importId, part, open);
  const list = changes.data?.pages.flatMap((p) => p.changes) ?? [];
  return (
    <details onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{summary}</summary>
      {changes.isPending && open && <p>Loading…</p>}
      {changes.isError && <FormError error={`Could not read the import's changes: ${changes.error.message}`} />}
      {list.length > 0 && (
        <ul aria-label={summary}>
          {list.map((c) => (
            <li key={c.seq}>
              {subject(c)} {VERB[c.op]}
              <OpenPoi c={c} onOpen={onOpen} />
            </li>
          ))}
        </ul>
      )}
      {changes.hasNextPage && (
        <button type="button" disabled={changes.isFetchingNextPage} onClick={() => void changes.fetchNextPage()}>
          {changes.isFetchingNextPage ? 'Loading…' : `More of ${summary.toLowerCase()}`}
        </button>
      )}
    </details>
  );
}

/** An import as one entry of the activity list: who, when, which file, what it did; its changes on demand; one Undo while there is something to undo. */
export function ImportEntry({ clientId, entry, onOpen }: { clientId: string; entry: Extract<ActivityEntry, { kind: 'import' }>; onOpen: (poi: number) => void }) {
  const i = entry.import;
  return (
    <li className="change import-entry">
      <p>
        <time dateTime={i.at}>{new Date(i.at).toLocaleString()}</time>: Import of {fileOf(i)} by the console: {did(i)}.
      </p>
      <ImportChanges clientId={clientId} importId={i.id} part="import" summary={`Its changes (${i.changes.toLocaleString('en')})`} onOpen={onOpen} />
      <UndoImport clientId={clientId} importId={i.id} label="Undo the whole import" undone={i.undone} />
    </li>
  );
}

/** The undo of an import as one entry: the changes that reversed it, listed on demand. */
export function ImportUndoEntry({ clientId, entry, onOpen }: { clientId: string; entry: Extract<ActivityEntry, { kind: 'import-undo' }>; onOpen: (poi: number) => void }) {
  return (
    <li className="change import-entry">
      <p>
        <time dateTime={entry.at}>{new Date(entry.at).toLocaleString()}</time>: The import of {fileOf(entry.import)} undone by the console: {count(entry.reversed, 'change')} reversed.
      </p>
      <ImportChanges clientId={clientId} importId={entry.import.id} part="undo" summary={`The changes that reversed it (${entry.reversed.toLocaleString('en')})`} onOpen={onOpen} />
    </li>
  );
}
