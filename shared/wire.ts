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
