import type { FieldValue } from '../../shared/sync-entities.js';
import type { ConflictReply, Resolution } from '../../shared/sync.js';
import type { SyncCore } from '../core/sync/sync-parts.js';
import { call, centralConflicts, syncOnce, SyncError, type SyncTarget } from './client.js';

/**
 * How a person resolves a conflict from a desktop: keep this desktop's side (`mine`) or the other
 * one (`theirs`), or a side by where it stands on the central (`pushed`, `earlier`), or a value of
 * their own; a clash by renaming one of the two rows, or merging them.
 */
export type Choice =
  | { keep: 'mine' | 'theirs' | 'pushed' | 'earlier' }
  | { value: FieldValue }
  | { rename: { uuid: string; to: string } }
  | { merge: { keep: string; drop: string } };

/** A choice from this desktop's point of view, as the central's resolution (the central knows sides as pushed and earlier). */
function resolutionOf(conflict: ConflictReply, choice: Choice, thisDevice: string): Resolution {
  if (!('keep' in choice)) return choice;
  if (choice.keep === 'pushed' || choice.keep === 'earlier') return { keep: choice.keep };
  const mine = conflict.device === thisDevice ? 'pushed' : conflict.other_device === thisDevice ? 'earlier' : undefined;
  if (!mine) {
    throw new SyncError(
      `neither side of conflict ${conflict.id} was written by this desktop, so neither is "mine": keep a side by who wrote it (pushed by ${conflict.device_name ?? 'one device'}, or earlier by ${conflict.other_device_name ?? 'another'})`,
    );
  }
  return { keep: choice.keep === 'mine' ? mine : mine === 'pushed' ? 'earlier' : 'pushed' };
}

/**
 * Resolves one of the central's conflicts from this desktop: a sync first (so what waits here is
 * on the central, and a choice is made against what everyone sent), then the central writes the
 * outcome as a new version of the rows concerned and records who resolved it and how
 * (main/central/protocol/resolve.ts), then a sync brings the outcome here; every other desktop
 * gets it at its next sync.
 */
export async function resolveConflict(core: SyncCore, target: SyncTarget, id: number, choice: Choice): Promise<ConflictReply> {
  const { device } = await syncOnce(core, target);
  const conflict = (await centralConflicts(target)).find((c) => c.id === id);
  if (!conflict) throw new SyncError(`no open conflict ${id} (sync conflicts lists them)`);
  await call(target, `/sync/conflicts/${id}/resolve`, { method: 'POST', body: { resolution: resolutionOf(conflict, choice, device) } });
  await syncOnce(core, target);
  return conflict;
}
