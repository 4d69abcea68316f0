import { describe, expect, it } from 'vitest';
import { SYSTEM_CATEGORIES } from '../../shared/system-categories.js';
import { SYNC_ENTITIES, uniqueKeys } from '../../shared/sync-entities.js';
import { foldText } from '../../shared/text-fold.js';
import { sqlCellX, sqlCellY } from '../../main/core/pois/grid.js';
import { SYSTEM_CATEGORIES_002 } from '../../main/core/store/migrations/002-pois.js';
import { foldText004 } from '../../main/core/store/migrations/004-stable-identity-folded-text.js';
import { sqlCellX013, sqlCellY013 } from '../../main/core/store/migrations/013-map-grid.js';
import { SYSTEM_CATEGORIES_002 as CENTRAL_SYSTEM_CATEGORIES_002, UNIQUE_KEYS_002 } from '../../main/central/store/migrations/002-sync-identity.js';
import { freshDigests, upgradeDigests } from '../support/schema-digest.js';

/**
 * A migration must create tomorrow exactly what it created when it was written, so it imports no
 * live code (the zone rule of docs/design.md#zones): what it used is copied into it, frozen.
 */

/**
 * What each version created, as test/support/schema-digest.ts digests it, computed with the
 * migrations as they were written, before their live imports were frozen into them. A digest
 * that no longer matches means an old migration now creates something else: revert that, and
 * write a new migration instead. A new migration adds its own line.
 */
const FRESH: Record<number, string> = {
  1: '8714176257b8d497ccba793994bfbec76ea5c9f01ae0d0d35ddd05fa263e5413',
  2: '9734a7af9bc4a07c3e320ed5c657170954014342bb51e754cec70ebbd3947e72',
  3: 'cd2d429842dfa7bb62abc1d9e0b59770f842620e1bf30b8b55d7b2ea83874cbb',
  4: 'c3e8104a30f5f8db1e58db49e61fcbe3aebfc0cfa178a0ce1f6cc84c63215d26',
  5: '60a2333d83357c715dfc1da1487afa6b9febfdfcd6df2423d1f6237d17a66f2b',
  6: '437cb33185a50a957aadf3cb5aaf75d30cc727dd51de862af41bf32f8ca53ee4',
  7: '16b3027432277780d16dc8a4b0adc8715a806e942a0d63c6f1ba97e917e77eb2',
  8: 'bd14f2e2856f11b1eeafc87ab2d0ad72c1efcc3852781f3af83a8ea58a6ed5e4',
  9: '9a7a8749a5fb78ae0a0e872753f9b79273efa68e60ec1d13f7e85f2041d0be0c',
  10: '095e556053e0fc0ecaebe205f90bd8532e5c06524397f49cf108fdb7aea8e6e4',
  11: '1d0400287544687c45df3287810b46c976e3b0cfd41e7bd8c7145b7e16542d26',
  12: 'aa549ebd6e7714a9077e2552aa9e33e9e05c32424e6bd2105c9185d7555d2622',
  13: 'e0f87b27b9ce30f099e951d6bb74b6e908ae83627cbc77a187dd5883e8e4cbea',
  14: '19c1f080f10b774135beac541b1fc69e52a3243fd2a02474fdee22663bea94c5',
  15: 'ffa67db7e63ea91d635a1ffab4eb696613c3ed6124136528370b1f7abbb4d92c',
  16: '8a15e26edcd4a52e605321c48c88776ca85dc5acad4790aa22fa57253d898c60',
  17: 'b07c11f1b1428186972c6bc96bb8e94290287a68519868ccab487285217b3f4d',
  18: 'e259e9698c0f271a292853c46b8990d0c359e428b7c47e8ee3541281141c2140',
};

/** The same, for a database with POIs written at version 3 and upgraded one version at a time. */
const UPGRADE: Record<number, string> = {
  4: 'c652fdcc3ba93d09e884d0588362c73515d4598d0bc2aa066cb3de6012749cc8',
  5: '15965b1c0170c183399b4f99dbfe53d94034214b10c0f01c83e93acb452570d8',
  6: '84cc8da67c82bc7c9e4d039e7e9aaf89c52d76fa56a1317dab7bb814a523e4fe',
  7: '5fc9805397816088965f0ac9bc40c86a17fc0021468036bd28761269598eb330',
  8: '5de8d7117dba282d9fc1d4e446633b58c40d163dd158231ed80b9d5692a9d4a0',
  9: '8503b86c56e43b6b2910f911c10a252aed4ac7755b5c016d99fe865fe7a7373e',
  10: 'e57e8459ff7d34a98d365fc7c88b368058e9605bbe9046da912e1cae2a96fca1',
  11: '14aa4ab341c2009fc7e3b5b4318bb8ea42d1694fcb1fa73c4e2ea9f67ec3469c',
  12: 'e8fdc8733da8e4847751c9e55bc609658de703a947f9a28bca98357b5770c4b8',
  13: 'fe1cf2d9e4a11670a3f28efc5ce8f5ed89f21da21bde5b8a6e16f33c97d324d7',
  14: 'e6e591e877d69ab5d649695c35c88ce7a7aaee0ed97e7634ea06d6cc370f6464',
  15: 'c7a32da655beca42b4515d1fdb4d2c1a08f4015aa19f1d4fbad0f21999ba3a9c',
  16: '393074c7332427a5d9966618966b4ff199b292773f9e5a934ee84051c2b3d9a0',
  17: '1d864e3b6ae22bf9bae3c15bd96b15984d318c08c45104e9b155f74cbfae0746',
  18: 'fee1ba3725e714bc85399c5a0d852ae9a6dcb86bd78e59bac1a833b51aec22a8',
};

/** Every code point but the lone surrogates, each as a string of its own. */
function* everyCodePoint(): Generator<string> {
  for (let c = 0; c <= 0x10ffff; c++) if (c < 0xd800 || c > 0xdfff) yield String.fromCodePoint(c);
}

/** Texts whose fold is more than each character's: combining sequences, ligatures, final sigma, Hangul. */
const TEXTS = ['Ávila', 'Straße', 'ΆΘΗΝΑ', 'Αθήνας', 'ﬁsh Ａ', 'Ñandú', 'İstanbul', 'ǅemal', 'A\u0301\u0327', '한국어', 'ガギ', 'ᄀ\u1161', '  Café   au  lait ', 'e\u0301\u0301', 'ﷺ'];

describe('what each migration creates', () => {
  it('is, on a fresh install, what it was when it was written', () => {
    expect(freshDigests()).toEqual(FRESH);
  });

  it('is, on an upgrade of a database holding POIs, what it was when it was written', () => {
    expect(upgradeDigests()).toEqual(UPGRADE);
  });
});

/**
 * Where a frozen copy and the live code must agree for the app to work. If one of these fails,
 * the live code changed: the databases keep what the migration wrote, so a new migration must
 * bring them to the new form (and the frozen copy stays as it is).
 */
describe('the frozen copies agree with the live code they were taken from', () => {
  it("the grid's cell formulas (migration 013's triggers, the filtered views and viewports of main/core/pois/grid.ts)", () => {
    expect(sqlCellX013('LNG', 'SCALE')).toBe(sqlCellX('LNG', 'SCALE'));
    expect(sqlCellY013('LAT', 'SCALE')).toBe(sqlCellY('LAT', 'SCALE'));
  });

  it("the text fold of the desktop's `_key` columns (migration 004, shared/text-fold.ts), on every code point", () => {
    const differ: string[] = [];
    for (const c of everyCodePoint()) if (foldText004(c) !== foldText(c)) differ.push(c);
    for (const text of TEXTS) if (foldText004(text) !== foldText(text)) differ.push(text);
    expect(differ).toEqual([]);
  });

  it("the central's unique keys and their folds (central migration 002, shared/sync-entities.ts)", () => {
    for (const entity of ['member', 'category'] as const) {
      const live = uniqueKeys(entity);
      const frozen = UNIQUE_KEYS_002[entity];
      expect(frozen.table).toBe(SYNC_ENTITIES[entity].table);
      expect(frozen.keys.map((k) => [k.field, k.column])).toEqual(live.map((k) => [k.field, k.column]));
      frozen.keys.forEach((k, i) => {
        const differ: string[] = [];
        for (const text of [...TEXTS, ...everyCodePoint()]) if (k.fold(text) !== live[i]!.fold(text)) differ.push(text);
        expect({ entity, field: k.field, differ }).toEqual({ entity, field: k.field, differ: [] });
      });
    }
  });

  it('the system categories (migration 002 of both stores, shared/system-categories.ts)', () => {
    expect(SYSTEM_CATEGORIES_002).toEqual(SYSTEM_CATEGORIES);
    expect(CENTRAL_SYSTEM_CATEGORIES_002).toEqual(SYSTEM_CATEGORIES);
  });
});
