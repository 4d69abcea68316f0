import type { ChangeReply } from '../../../shared/wire';

/** "Open" after a change of a POI that still exists as it left it (not a delete). */
export function OpenPoi({ c, onOpen }: { c: ChangeReply; onOpen: (poi: number) => void }) {
  if (c.entity !== 'poi' || c.op === 'delete') return null;
  return (
    <>
      {' '}
      <button type="button" className="link" onClick={() => onOpen(Number(c.id))}>
        Open
      </button>
    </>
  );
}
