import { FormError } from '../ui/Field';
import { useUndoImport } from './mutations';

/** Right under an import's report: the whole import reversed, if nothing it wrote was changed since. */
export function UndoImport({ clientId, importId }: { clientId: string; importId: string }) {
  const undo = useUndoImport();
  return (
    <div className="actions">
      <button type="button" disabled={undo.isPending || undo.isSuccess} onClick={() => undo.mutate({ clientId, importId })}>
        Undo this import
      </button>
      {undo.isSuccess && <span role="status"> Import undone: {undo.data.undone} changes reversed.</span>}
      <FormError error={undo.errors.form} />
    </div>
  );
}
