import { z } from 'zod';
import { canonicalIso } from '../time.js';

/**
 * Member rules (docs/api-spec.md#register-a-member, docs/api-spec.md#log-in), keyed by the wire
 * parameter names so that a failed rule names the parameter the client sent. Lengths count
 * Unicode code points, not UTF-16 units, so that "6 to 40 characters" means what a person reads.
 */

/**
 * What a transport hands the core before validation: every field may be missing or null (an empty wire value), and the
 * schema decides whether that is allowed (a missing required field is MISSING_PARAMETER).
 */
export type Loose<T> = { [K in keyof T]?: T[K] | null | undefined };

const codePoints = (s: string): number => [...s].length;

/** 100 years: long enough for "forever-ish", short enough that the expiry is a valid date. */
export const MAX_EXPIRES_IN_SECONDS = 100 * 365.25 * 24 * 3600;

export const username = z
  .string()
  .regex(/^[A-Za-z0-9]{6,40}$/, 'must be 6 to 40 letters (A-Z, a-z) and digits');

export const password = z
  .string()
  .refine((s) => codePoints(s) >= 6 && codePoints(s) <= 40, 'must be 6 to 40 characters');

export const email = z
  .string()
  .refine((s) => codePoints(s) < 255, 'must be shorter than 255 characters')
  .pipe(z.email('must be a well-formed e-mail address'));

export const GENDERS = ['MALE', 'FEMALE', 'UNDEFINED'] as const;
export type Gender = (typeof GENDERS)[number];

/** Clients send `male`, `Male`, `FEMALE`...: replies are upper-case. */
export const gender = z
  .string()
  .transform((s) => s.toUpperCase())
  .pipe(z.enum(GENDERS, 'must be male or female'));

/** Stored and replied in canonical form, keeping the offset the client chose. */
export const birthday = z.string().transform((s, ctx) => {
  const canonical = canonicalIso(s);
  if (canonical === null) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be an ISO 8601 date-time with offset, like 1997-07-16T10:30:15.342+03:00',
    });
    return z.NEVER;
  }
  return canonical;
});

export const expiresIn = z
  .number('must be a number of seconds')
  .refine((n) => Number.isFinite(n) && n > 0, 'must be a positive number of seconds')
  .refine((n) => n <= MAX_EXPIRES_IN_SECONDS, `must be at most ${MAX_EXPIRES_IN_SECONDS} seconds (100 years)`);

export const registerInput = z.object({
  username,
  pwd: password,
  email,
  /** null or absent: UNDEFINED. */
  gender: gender.nullish(),
  birthday: birthday.nullish(),
  /** absent: a permanent accreditation. */
  expiresin: expiresIn.optional(),
});
export type RegisterInput = Loose<z.input<typeof registerInput>>;
export type ValidRegister = z.output<typeof registerInput>;

export const loginInput = z.object({
  /** The username or the e-mail: only checked against stored members, never echoed. */
  username: z.string().min(1, 'must not be empty').max(300, 'is too long'),
  pwd: z.string().min(1, 'must not be empty').max(300, 'is too long'),
  expiresin: expiresIn.optional(),
});
export type LoginInput = Loose<z.input<typeof loginInput>>;

/** Absent means unchanged; null (an empty wire value) clears gender or birthday. */
export const updateMemberFields = {
  pwd: password.optional(),
  oldpwd: z.string().max(300, 'is too long').optional(),
  gender: gender.nullish(),
  birthday: birthday.nullish(),
};

/** A new pwd needs the old one. */
export function oldPasswordWithNew(v: { pwd?: string | undefined; oldpwd?: string | undefined }, ctx: z.RefinementCtx): void {
  if (v.pwd !== undefined && v.oldpwd === undefined) {
    ctx.addIssue({ code: 'custom', path: ['oldpwd'], message: 'is required to change pwd', params: { missing: true } });
  }
}

export const updateMemberInput = z.object(updateMemberFields).superRefine(oldPasswordWithNew);
export type UpdateMemberInput = Loose<z.input<typeof updateMemberInput>>;
export type ValidUpdateMember = z.output<typeof updateMemberInput>;

export const MAX_PAGE_SIZE = 1000;
export const pageInput = z.object({
  count: z.number().int('must be an integer').min(1, 'must be at least 1').max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`).default(100),
  page: z.number().int('must be an integer').min(0, 'must be 0 or more').max(1_000_000, 'is too large').default(0),
});
export type PageInput = Loose<z.input<typeof pageInput>>;
export type ValidPage = z.output<typeof pageInput>;

export const clientName = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
