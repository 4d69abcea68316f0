/** Percentiles of a sample of durations, in milliseconds. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export interface Timing {
  runs: number;
  median: number;
  p99: number;
  mean: number;
}

/** Runs `fn` `runs` times after `warmup` untimed runs; each call is timed on its own. */
export function time(runs: number, warmup: number, fn: (i: number) => unknown): Timing {
  for (let i = 0; i < warmup; i++) fn(i);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    fn(i);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return {
    runs,
    median: percentile(samples, 50),
    p99: percentile(samples, 99),
    mean: samples.reduce((a, b) => a + b, 0) / samples.length,
  };
}

/** A small seeded PRNG (mulberry32), so every run fills the same database. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` POI ids between 1 and `maxId` in a seeded random order: get.json asks a different POI almost every time. */
export function randomIds(maxId: number, count: number, seed: number): number[] {
  const rnd = prng(seed);
  return Array.from({ length: count }, () => 1 + Math.floor(rnd() * maxId));
}

export const fmt = (ms: number): string => (ms < 10 ? ms.toFixed(3) : ms.toFixed(1));

