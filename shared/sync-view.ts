import type { ConflictReply } from './sync.js';

/** One side of a conflict as a desktop shows it: whose, and what. */
export interface ConflictSide {
  /** "this desktop", "device NAME", or "the central" when it does not know who wrote it. */
  who: string;
  thisDesktop: boolean;
  value: ConflictReply['mine'];
  /** What keeping this side asks the central for. */
  keep: 'pushed' | 'earlier';
  /** The side the central keeps for now. */
  kept: boolean;
}

/** A conflict from one desktop's point of view: this desktop's side first, each side named. */
export interface ConflictView extends ConflictReply {
  sides: [ConflictSide, ConflictSide];
  /** The names of the categories its values refer to (a client category's uuid, `system:N`), as this desktop knows them. */
  names: Record<string, string>;
}

const deviceName = (id: string | null, name: string | null): string => (name ? `device ${name}` : id ? `device ${id.slice(0, 8)}` : 'the central');

/**
 * The labels of a conflict from the desktop that shows it (the central's record says `mine` for
 * the pushed side, whoever reads it): the side this desktop wrote is "this desktop", the other
 * is named by its device. In a clash, the other side is the other row.
 */
export function conflictView(c: ConflictReply, thisDevice: string | null, names: Record<string, string> = {}): ConflictView {
  const pushed: ConflictSide = { who: c.device === thisDevice ? 'this desktop' : deviceName(c.device, c.device_name), thisDesktop: c.device === thisDevice, value: c.mine, keep: 'pushed', kept: c.kept === 'mine' };
  const earlier: ConflictSide = {
    who: c.other_device === thisDevice ? 'this desktop' : deviceName(c.other_device, c.other_device_name),
    thisDesktop: c.other_device !== null && c.other_device === thisDevice,
    value: c.theirs,
    keep: 'earlier',
    kept: c.kept === 'theirs',
  };
  return { ...c, names, sides: earlier.thisDesktop && !pushed.thisDesktop ? [earlier, pushed] : [pushed, earlier] };
}

/** Every category reference a conflict's values hold, for their names to be looked up. */
export function refsIn(c: ConflictReply): string[] {
  const refs = new Set<string>();
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach((r) => typeof r === 'string' && refs.add(r));
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(visit);
  };
  [c.base, c.mine, c.theirs].forEach(visit);
  return [...refs];
}
