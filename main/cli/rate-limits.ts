import { DEFAULT_LIMITS, LIMIT_NAMES, type AbuseLimits } from '../core/members/abuse.js';

/** `login-user=5/900` → 5 events per 900 seconds for loginFailuresPerUser. */
export function parseRateLimits(specs: readonly string[]): Partial<AbuseLimits> {
  const limits: Partial<AbuseLimits> = {};
  for (const spec of specs) {
    const m = /^([a-z-]+)=(\d+)\/(\d+)$/.exec(spec);
    const key = m ? LIMIT_NAMES[m[1] as keyof typeof LIMIT_NAMES] : undefined;
    if (!m || !key || Number(m[2]) < 1 || Number(m[3]) < 1) {
      throw new Error(
        `--rate-limit ${spec}: expected NAME=POINTS/SECONDS with NAME one of ${Object.keys(LIMIT_NAMES).join(', ')}`,
      );
    }
    limits[key] = { points: Number(m[2]), seconds: Number(m[3]) };
  }
  return limits;
}

export function describeLimits(limits: Partial<AbuseLimits>): string {
  const all = { ...DEFAULT_LIMITS, ...limits };
  return Object.entries(LIMIT_NAMES)
    .map(([name, key]) => `${name}=${all[key].points}/${all[key].seconds}`)
    .join(' ');
}
