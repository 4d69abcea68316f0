import { formatIso } from '../../../shared/time.js';
import type { UserReply } from '../../../shared/wire.js';
import type { MemberRow } from './members.js';

export interface ReplyAccreditation {
  token: string | null;
  expiresAt: number | null;
}

/**
 * The user reply (docs/api-spec.md#the-user-reply) with every field present (old SDKs refuse a
 * reply whose ugroup or visibledevices is not an array). `privateFields` false hides what only
 * the member itself and the administrator may read.
 */
export function userReply(member: MemberRow, accreditation: ReplyAccreditation, privateFields: boolean): UserReply {
  return {
    id: member.id,
    name: member.username,
    email: privateFields ? member.email : null,
    email_verified: privateFields ? member.email_verified === 1 : null,
    register: formatIso(member.registered_at),
    provider: null,
    profile: { birthday: privateFields ? member.birthday : null, gender: member.gender },
    ugroup: [],
    accreditation: {
      expirationtime: accreditation.expiresAt === null ? null : formatIso(accreditation.expiresAt),
      client_id: member.client_id,
      access_token: accreditation.token,
      refresh_token: null,
      visibledevices: [],
    },
  };
}
