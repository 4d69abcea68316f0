import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchPois } from './pois.js';

/** `npm run bench [-- --pois N]`: prints the figures and writes them under test/bench/results/. */
const { values } = parseArgs({ options: { pois: { type: 'string', default: '1000000' } } });
const count = Number(values.pois);
if (!Number.isInteger(count) || count < 1000) throw new Error('--pois must be an integer of at least 1000');

const pois = benchPois(count);
const dir = join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
const file = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, pois }, null, 2));
console.log(`results written to ${file}`);
