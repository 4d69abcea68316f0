import type { Gender } from './schemas/members.js';

/** Shapes of the replies of spec section 2, exactly as clients receive them. */

export interface Device {
  id: number;
  name: string;
  model: number;
  islogical: boolean;
}

export interface Accreditation {
  expirationtime: string | null;
  client_id: string;
  /** The token issued by this reply; null when the reply issues none (show, list). */
  access_token: string | null;
  refresh_token: null;
  visibledevices: Device[];
}

export interface UserReply {
  id: string;
  name: string;
  /** null when the caller may not see it (a member looking at another member). */
  email: string | null;
  email_verified: boolean | null;
  register: string;
  provider: null;
  profile: { birthday: string | null; gender: Gender };
  ugroup: never[];
  accreditation: Accreditation;
}

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

/** Spec 2.2. The capitalised names are the platform's own. */
export interface CategoryReply {
  Id: number;
  Description: string;
  is_system_category: boolean;
}

/** Spec 2.3: open reports of each type. */
export interface WarningCounts {
  closed: number;
  duplicated: number;
  wrong_indicator: number;
  wrong_info: number;
}

/** Spec 2.1, every field present (null where empty): the old SDK refuses a reply without one. */
export interface PoiReply {
  id: number;
  /** Stable across copies of the data (history, sync); old clients ignore it. */
  uuid: string;
  name: string;
  description: string | null;
  latitude: number;
  longitude: number;
  elevation: number | null;
  accuracy: number | null;
  vaccuracy: number | null;
  registertime: string;
  categories: CategoryReply[];
  address: string | null;
  cross_street: string | null;
  city: string | null;
  country: string | null;
  postal_code: string | null;
  phone: string | null;
  twitter: string | null;
  last_update: string;
  warnings: WarningCounts;
}

/**
 * What a WRONG_INDICATOR or WRONG_INFO report proposes, in the POI reply's names and shapes (the
 * old SDK parses it with its POI parser): null where nothing was proposed, `categories` always
 * an array.
 */
export type WarningProposal = { [K in keyof Omit<PoiReply, 'id' | 'uuid' | 'registertime' | 'last_update' | 'warnings' | 'categories'>]: PoiReply[K] | null } & {
  /** The report's id. */
  id: number;
  categories: CategoryReply[];
};

export interface WarningReply {
  id: number;
  poi_id: number;
  type: 'CLOSED' | 'DUPLICATED' | 'WRONG_INDICATOR' | 'WRONG_INFO';
  /** The reporting member; null when the administrator reported it or the member was deleted. */
  user_id: string | null;
  timestamp: string;
  /** null for CLOSED and DUPLICATED. */
  data: WarningProposal | null;
}

/**
 * The POI as the warnings list shows it: the old SDK reads these camelCase names in this one
 * reply (and the snake_case ones everywhere else), so this reply carries both.
 */
export interface WarningListPoi extends PoiReply {
  crossStreet: string | null;
  postalCode: string | null;
  lastUpdate: string;
  warnings: WarningCounts & { wrongIndicator: number; wrongInfo: number };
}

/** One entry of the change log: what changed, from what to what, who did it and when. */
export interface ChangeReply {
  /** The log's sequence number: later changes have higher numbers. */
  seq: number;
  at: string;
  /** client, member, token, poi, poi_category, category, warning, setting. */
  entity: string;
  id: string;
  uuid: string | null;
  op: 'create' | 'update' | 'delete';
  /** Each changed field: [old value, new value] (null for a create's old and a delete's new values). */
  fields: Record<string, [unknown, unknown]>;
  /** Who: a member (its id), the client's administrator, the console's operator, an import, a sync, or the service itself. */
  actor: { kind: 'member' | 'administrator' | 'console' | 'import' | 'sync' | 'system'; id: string | null };
}

export interface WarningGroup {
  current: WarningListPoi;
  warnings: WarningReply[];
}
