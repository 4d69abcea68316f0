import { hash, verify } from '@node-rs/argon2';

/**
 * argon2id with OWASP's first recommended profile (19 MiB, 2 passes, 1 lane). The hash runs on
 * libuv's thread pool, so a login in progress never blocks the event loop.
 */
export const ARGON2_PARAMS = {
  algorithm: 2, // Algorithm.Argon2id (a const enum in the typings, so written as its value)
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(stored: string, password: string): Promise<boolean>;
  /** Spends the time of one verification, so an unknown user costs what a wrong password costs. */
  burn(password: string): Promise<void>;
}

export function argon2Hasher(params: { algorithm: typeof ARGON2_PARAMS.algorithm; memoryCost: number; timeCost: number; parallelism: number } = ARGON2_PARAMS): PasswordHasher {
  let dummy: Promise<string> | undefined;
  return {
    hash: (password) => hash(password, params),
    verify: async (stored, password) => {
      try {
        return await verify(stored, password);
      } catch {
        return false;
      }
    },
    burn: async (password) => {
      dummy ??= hash('timing-equaliser-not-a-password', params);
      try {
        await verify(await dummy, password);
      } catch {
        // The outcome is irrelevant: only the time spent matters.
      }
    },
  };
}
