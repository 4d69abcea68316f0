import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { poiFixture, type Fixture } from './fixture.js';

export const LOAD_DESC = 'x'.repeat(1000);

/** A real listener over a database file in a new folder, holding `ballast` POIs of 1 KB each. */
export async function fileServer(ballast: number): Promise<{ f: Fixture; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'poi-load-'));
  const f = await poiFixture({ file: join(dir, 'poi.sqlite') });
  for (let done = 0; done < ballast; done += 40) {
    await Promise.all(Array.from({ length: Math.min(40, ballast - done) }, (_, i) => f.addPoi({ name: `ballast ${done + i}`, desc: LOAD_DESC })));
  }
  return { f, dir };
}

export interface WriteLoad {
  /** Every add answered so far, in order: its status, how long it took, and whether `during` was on. */
  answers: Array<{ status: number; ms: number; during: boolean }>;
  /** Resolves once `n` more adds are answered. */
  more(n: number): Promise<void>;
  /** Marks the answers that arrive while it runs. */
  during<T>(work: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

/** `clients` parallel HTTP clients adding POIs through the listener until stopped. */
export function writeLoad(f: Fixture, clients = 8): WriteLoad {
  let stopped = false;
  let marking = false;
  const answers: WriteLoad['answers'] = [];
  const client = async (c: number): Promise<void> => {
    for (let n = 0; !stopped; n++) {
      const started = performance.now();
      const r = await f.t.get('/1/pois/add.json', { oauth_token: f.admin, lat: 40.4, lng: -3.7, name: `load ${c}-${n}`, categories: 7, desc: LOAD_DESC });
      answers.push({ status: r.status, ms: performance.now() - started, during: marking });
    }
  };
  const running = Array.from({ length: clients }, (_, c) => client(c));
  return {
    answers,
    more: async (n) => {
      const target = answers.length + n;
      while (answers.length < target) await new Promise((r) => setTimeout(r, 5));
    },
    during: async (work) => {
      marking = true;
      try {
        return await work();
      } finally {
        marking = false;
      }
    },
    stop: async () => {
      stopped = true;
      await Promise.all(running);
    },
  };
}
