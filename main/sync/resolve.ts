import { POI_FIELDS } from '../../shared/poi-fields.js';
import type { CategoryRef, ConflictReply, FieldValue } from '../../shared/sync.js';
import { updatePoiInput } from '../../shared/schemas/pois.js';
import { validate } from '../core/errors.js';
import type { SyncCore } from '../core/sync/sync-parts.js';
import { centralConflicts, markResolved, syncOnce, SyncError, type SyncTarget } from './client.js';

export type Choice = { keep: 'mine' | 'theirs' } | { value: FieldValue };


/**
 * Resolves one of the central's conflicts from this desktop: after a sync, the chosen value is
 * written here as an ordinary change (with its history: who, when, old and new), the conflict is
 * marked resolved on the central, and a sync sends the change, so every desktop ends with it.
 */
export async function resolveConflict(core: SyncCore, target: SyncTarget, id: number, choice: Choice): Promise<ConflictReply> {
  const conflict = (await centralConflicts(target)).find((c) => c.id === id);
  if (!conflict) throw new SyncError(`no open conflict ${id} (sync conflicts lists them)`);
  // First what the central holds now, so that the chosen value is written over it (and sent) even
  // when this desktop already had it.
  await syncOnce(core, target);
  const clientId = core.sync.state.read().clientId;
  if (!clientId) throw new SyncError('this desktop has not synced yet');
  const chosen = 'value' in choice ? choice.value : choice.keep === 'mine' ? conflict.mine : conflict.theirs;
  const poi = conflict.entity === 'poi' ? core.sync.poiId(conflict.uuid) : undefined;
  if (conflict.field === null) {
    // An edit against a delete: keeping the delete deletes it here too; keeping the edit keeps the POI.
    if (chosen === 'deleted' && poi !== undefined) core.pois.remove(clientId, poi);
  } else if (poi !== undefined) {
    const wire = conflict.field === 'categories' ? 'categories' : POI_FIELDS.find((f) => f.column === conflict.field)?.wire;
    if (!wire) throw new SyncError(`conflict ${id} is about ${conflict.field}, which this desktop does not edit`);
    const value = wire === 'categories' ? core.sync.refs.ids(Array.isArray(chosen) ? (chosen as CategoryRef[]) : []) : chosen;
    // Checked by update's own schema: a value the rules refuse is refused here, saying why.
    await core.pois.update(clientId, validate(updatePoiInput, { poi, [wire]: value, geocode: false }));
  }
  await markResolved(target, id, { keep: 'value' in choice ? 'value' : choice.keep, value: chosen });
  await syncOnce(core, target);
  return conflict;
}
