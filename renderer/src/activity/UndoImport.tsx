import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useJob } from '../jobs/queries';
import { useConfirm } from '../ui/Confirm';
import { FormError } from '../ui/Field';
import { changedByUndo, useUndoImport } from './mutations';

const count = (n: number): string => n.toLocaleString('en');

/**
 * Undo of a whole import, as a job: its progress (changes reversed), then what it did, said in a
 * live region on the page from the start. Asked first, as every other undoing of many changes is
 * (a first user undid an import by one click under its report). Once it is `undone` (or this undo
 * is done), it says so and offers no Undo.
 */
export function UndoImport({ clientId, importId, label = 'Undo this import', undone = false }: { clientId: string; importId: string; label?: string; undone?: boolean }) {
  const queryClient = useQueryClient();
  const ask = useConfirm();
  const undo = useUndoImport();
  const job = useJob(undo.data?.id).data;
  const running = undo.isPending || job?.state === 'running';
  const ended = job !== undefined && job.state !== 'running' ? job : undefined;
  const refreshed = useRef<string | undefined>(undefined);
  useEffect(() => {
    // What it reversed is read again once, when it ends.
    if (!ended || refreshed.current === ended.id) return;
    refreshed.current = ended.id;
    for (const queryKey of changedByUndo({ clientId })) void queryClient.invalidateQueries({ queryKey });
  }, [ended, clientId, queryClient]);
  const start = async (): Promise<void> => {
    const question = { title: 'Undo an import', text: 'Undo the whole import? Every POI it added goes, and every POI it updated gets its values back.', yes: 'Undo the import', no: 'Keep it', destructive: true };
    if (!(await ask(question))) return;
    undo.mutate({ clientId, importId });
  };
  const undoing = job?.state === 'running' ? job.progress.undoing : null;
  const outcome = ended === undefined ? '' : ended.state === 'done' && ended.kind === 'undo-import' && ended.report ? `Import undone: ${count(ended.report.undone)} changes reversed.` : '';
  const finished = ended?.state === 'done';
  return (
    <div className="actions">
      {!finished && !(undone && !running) && (
        <button type="button" aria-disabled={running} onClick={() => !running && void start()}>
          {label}
        </button>
      )}
      {undone && !running && !finished && <p>This import was undone: nothing of it is left to undo.</p>}
      {undoing && (
        <label>
          Undoing: {count(undoing.done)} of {count(undoing.of)} changes
          <progress max={undoing.of} value={undoing.done} />
        </label>
      )}
      <span role="status">{outcome}</span>
      {ended?.state === 'failed' && <p role="alert" className="error">{ended.error}</p>}
      <FormError error={undo.errors.form} />
    </div>
  );
}
