import type { z } from 'zod';
import type * as replies from './api/replies.js';

/**
 * Shapes of the replies, exactly as clients receive them. The API's are declared once, as the
 * schemas of shared/api/replies.ts; the console's own shapes are declared here.
 */
export type Device = z.infer<typeof replies.device>;
export type Accreditation = z.infer<typeof replies.accreditation>;
export type UserReply = z.infer<typeof replies.userReply>;
export type CategoryReply = z.infer<typeof replies.categoryReply>;
export type WarningCounts = z.infer<typeof replies.warningCounts>;
export type PoiReply = z.infer<typeof replies.poiReply>;
export type WarningProposal = z.infer<typeof replies.warningProposal>;
export type WarningReply = z.infer<typeof replies.warningReply>;
export type WarningListPoi = z.infer<typeof replies.warningListPoi>;
export type WarningGroup = z.infer<typeof replies.warningGroup>;
export type ChangeReply = z.infer<typeof replies.changeReply>;

export interface ClientSummary {
  client_id: string;
  name: string;
  implicit_flow: boolean;
  created: string;
}

export interface NewClient {
  client_id: string;
  name: string;
  implicit_flow: boolean;
  admin_token: string;
}

/** A POI of the same client close to a POI being added, with a similar name: a warning, never a refusal. */
/** What an undo reversed: how many changes, and the POI when it was one POI's change. */
export interface UndoReply {
  undone: number;
  poi: number | null;
}

/** Two POIs of a client that look like one place entered twice (the lower id first). */
export interface DuplicatePair {
  a: { id: number; name: string };
  b: { id: number; name: string };
  distance_m: number;
}

export interface PossibleDuplicate {
  id: number;
  name: string;
  /** Rounded to the metre. */
  distance_m: number;
}
