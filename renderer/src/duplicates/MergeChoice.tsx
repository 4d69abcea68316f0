import { useId, useState } from 'react';
import { useConfirm } from '../ui/Confirm';
import { FormError } from '../ui/Field';
import { useMergePois } from './mutations';

interface Side {
  id: number;
  name: string;
}

/** Merging two POIs: which one to keep (the other's reports and history go to it, and it is deleted), confirmed. */
export function MergeChoice({ clientId, a, b, onMerged }: { clientId: string; a: Side; b: Side; onMerged?: (kept: number) => void }) {
  const name = useId();
  const [keep, setKeep] = useState<number>(a.id);
  const merge = useMergePois();
  const confirm = useConfirm();
  const other = keep === a.id ? b : a;
  const kept = keep === a.id ? a : b;
  return (
    <fieldset className="merge-choice">
      <legend>Merge: which one stays?</legend>
      {[a, b].map((side) => (
        <label key={side.id}>
          <input type="radio" name={name} checked={keep === side.id} onChange={() => setKeep(side.id)} /> Keep “{side.name}” (POI {side.id})
        </label>
      ))}
      <button
        type="button"
        disabled={merge.isPending}
        onClick={async () => {
          const question = { title: 'Merge two POIs', text: `Keep “${kept.name}” and delete “${other.name}”? Its reports and history move to the one kept; the delete can be undone from the Activity panel.`, yes: 'Merge', no: 'Keep both', destructive: true };
          if (!(await confirm(question))) return;
          // The merge makes the pair leave the list, unmounting this form, often before a callback
          // of mutate() would run (it then never does): the kept POI is opened from the promise. A
          // refusal stays in the mutation's state, shown below.
          merge.mutateAsync({ clientId, keep: kept.id, other: other.id }).then(() => onMerged?.(kept.id), () => undefined);
        }}
      >
        Merge
      </button>
      <FormError error={merge.errors.form} />
    </fieldset>
  );
}
