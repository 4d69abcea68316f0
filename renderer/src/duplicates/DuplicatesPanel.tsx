import '../ui/panels.css';
import { useId, useState } from 'react';
import type { DuplicatePair } from '../../../shared/wire';
import { FormError } from '../ui/Field';
import { MergeChoice } from './MergeChoice';
import { useDuplicatePairs } from './queries';

function Pair({ clientId, pair, onOpen }: { clientId: string; pair: DuplicatePair; onOpen: (poi: number) => void }) {
  const [merging, setMerging] = useState(false);
  return (
    <li className="duplicate-pair">
      <p>
        <button type="button" className="link" onClick={() => onOpen(pair.a.id)}>
          {pair.a.name}
        </button>{' '}
        and{' '}
        <button type="button" className="link" onClick={() => onOpen(pair.b.id)}>
          {pair.b.name}
        </button>
        , {pair.distance_m} m apart
      </p>
      {merging ? (
        <MergeChoice clientId={clientId} a={pair.a} b={pair.b} onMerged={onOpen} />
      ) : (
        <button type="button" aria-label={`Merge “${pair.a.name}” and “${pair.b.name}”…`} onClick={() => setMerging(true)}>
          Merge…
        </button>
      )}
    </li>
  );
}

/** The client's POIs that look entered twice (within 50 m, similar names), two by two, each with a merge. */
export function DuplicatesPanel({ clientId, onOpen }: { clientId: string; onOpen: (poi: number) => void }) {
  const titleId = useId();
  const pairs = useDuplicatePairs(clientId);
  const all = pairs.data?.pages.flatMap((p) => p.pairs) ?? [];
  return (
    <section className="panel admin-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Possible duplicates</h2>
      <p className="note">POIs within 50 m of each other whose names are alike (case, accents and punctuation aside). Merging keeps one as it is and deletes the other.</p>
      {pairs.isError && <FormError error={`Could not look for duplicates: ${pairs.error.message}`} />}
      {pairs.isPending && <p>Looking…</p>}
      {pairs.data && all.length === 0 && !pairs.hasNextPage && <p>None found.</p>}
      {all.length > 0 && (
        <ul className="pairs" aria-label="Possible duplicates">
          {all.map((p) => (
            <Pair key={`${p.a.id}-${p.b.id}`} clientId={clientId} pair={p} onOpen={onOpen} />
          ))}
        </ul>
      )}
      {pairs.hasNextPage && (
        <button type="button" disabled={pairs.isFetchingNextPage} onClick={() => void pairs.fetchNextPage()}>
          {pairs.isFetchingNextPage ? 'Looking…' : 'Look further'}
        </button>
      )}
    </section>
  );
}
