import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../main/core/errors.js';
import { comparableName, similarNames } from '../../main/core/pois/duplicates.js';
import { metresBetween } from '../../main/core/pois/geo.js';
import { testCore } from '../support/core.js';

/** Metres per degree of latitude on the sphere geo.ts uses. */
const M_PER_DEG = (6_371_000 * Math.PI) / 180;
const SOL = { lat: 40.41692, lng: -3.70348 };
const north = (metres: number) => ({ lat: SOL.lat + metres / M_PER_DEG, lng: SOL.lng });

describe('similar POI names (case, accents and punctuation folded; Levenshtein ratio >= 0.8, or contained whole)', () => {
  // [a, b, same place?]: what a field team types for one place, and neighbours that are not it.
  const TABLE: Array<[string, string, boolean]> = [
    ['Café Plaza Mayor', 'cafe plaza mayor!', true],
    ['CAFÉ-PLAZA  MAYOR', 'Café Plaza Mayor', true],
    ['Museo del Prado', 'Museo del Prado.', true],
    ['Museo del Prado', 'Museo del Pardo', true], // a typo
    ['Museo del Prado', 'Prado', true], // the short name
    ['Starbucks', 'Starbucks Coffee', true],
    ['Ñandú Bar', 'nandu bar', true],
    ['Straße 5', 'STRASSE 5', true],
    ['Museo del Prado', 'Museo Reina Sofía', false],
    ['Farmacia Sol', 'Farmacia Luna', false],
    ['Bar', 'Bar Manolo', false], // too short to count as contained
    ['Plaza', 'Plazaola', false], // contained, but not as a word
    ['Hotel Europa', 'Hostal Asturias', false],
    ['!!!', '???', false], // nothing left to compare
  ];
  it.each(TABLE)('%s ~ %s: %s', (a, b, same) => {
    expect(similarNames(a, b)).toBe(same);
    expect(similarNames(b, a)).toBe(same);
  });

  it('folds with the project rule and drops punctuation', () => {
    expect(comparableName('  Café-Bar "Sol"! ')).toBe('cafe bar sol');
  });
});

describe('possible duplicates of a POI being added', () => {
  async function setup() {
    const core = testCore();
    const mine = core.clients.create({ name: 'Mine' }).client_id;
    const other = core.clients.create({ name: 'Other' }).client_id;
    const add = (clientId: string, name: string, at: { lat: number; lng: number }) =>
      core.pois.add(clientId, null, { ...at, name, categories: [1], geocode: false });
    return { core, mine, other, add };
  }

  it('finds a similar name within 50 m, nearest first, with its distance; not at 60 m, nor a different name', async () => {
    const { core, mine, add } = await setup();
    const at49 = await add(mine, 'Café Plaza Mayor', north(49));
    const at10 = await add(mine, 'CAFE PLAZA MAYOR', north(-10));
    await add(mine, 'Cafe Plaza Mayor', north(60));
    await add(mine, 'Museo Reina Sofía', north(5));
    expect(metresBetween(SOL.lat, SOL.lng, at49.latitude, at49.longitude)).toBeCloseTo(49, 3);
    const found = core.queries.duplicates(mine, { ...SOL, name: 'cafe plaza mayor!' });
    expect(found).toEqual([
      { id: at10.id, name: 'CAFE PLAZA MAYOR', distance_m: 10 },
      { id: at49.id, name: 'Café Plaza Mayor', distance_m: 49 },
    ]);
  });

  it("never looks at another client's POIs, and leaves out the POI itself", async () => {
    const { core, mine, other, add } = await setup();
    await add(other, 'Museo del Prado', SOL);
    expect(core.queries.duplicates(mine, { ...SOL, name: 'Museo del Prado' })).toEqual([]);
    const self = await add(mine, 'Museo del Prado', SOL);
    expect(core.queries.duplicates(mine, { ...SOL, name: 'Museo del Prado' }, self.id)).toEqual([]);
    expect(core.queries.duplicates(mine, { ...SOL, name: 'Museo del Prado' }).map((d) => d.id)).toEqual([self.id]);
  });

  it('finds the similar one among many POIs on one spot (a market hall)', async () => {
    const { core, mine, add } = await setup();
    for (let i = 0; i < 150; i++) await add(mine, `Puesto ${i}`, north(i % 30));
    const fruit = await add(mine, 'Frutas Paco', north(40));
    expect(core.queries.duplicates(mine, { ...SOL, name: 'frutas paco' }).map((d) => d.id)).toEqual([fruit.id]);
  });
});

describe('names that must differ', () => {
  const refusal = (work: () => unknown) => {
    try {
      work();
    } catch (error) {
      return error instanceof ServiceError ? { code: error.code, parameter: error.parameter } : error;
    }
    return undefined;
  };

  it('a category may not take the name of another of its client or of a system category (case and accents folded), on add and rename', () => {
    const core = testCore();
    const mine = core.clients.create({ name: 'Mine' }).client_id;
    const other = core.clients.create({ name: 'Other' }).client_id;
    const tapas = core.categories.add(mine, { desc: 'Tapas Bar' });
    expect(refusal(() => core.categories.add(mine, { desc: '  TAPAS   bar ' }))).toEqual({ code: 'ALREADY_EXISTS', parameter: 'desc' });
    expect(refusal(() => core.categories.add(mine, { desc: 'museum' }))).toEqual({ code: 'ALREADY_EXISTS', parameter: 'desc' });
    expect(refusal(() => core.categories.add(mine, { desc: 'Cafe and BAR' }))).toEqual({ code: 'ALREADY_EXISTS', parameter: 'desc' });
    // Another client's names are its own business.
    expect(core.categories.add(other, { desc: 'Tapas bar' }).Description).toBe('Tapas bar');
    const wine = core.categories.add(mine, { desc: 'Wine' });
    expect(refusal(() => core.categories.update(mine, wine.Id, { desc: 'tapas bar' }))).toEqual({ code: 'ALREADY_EXISTS', parameter: 'desc' });
    // Renaming a category to its own name in another case is no clash.
    expect(core.categories.update(mine, tapas.Id, { desc: 'TAPAS BAR' }).Description).toBe('TAPAS BAR');
    // A deleted category's name is free again.
    core.categories.remove(mine, wine.Id);
    expect(core.categories.add(mine, { desc: 'wine' }).Description).toBe('wine');
  });

  it('categories of one name already in a database are still read and renamed', () => {
    const core = testCore();
    const mine = core.clients.create({ name: 'Mine' }).client_id;
    // As a database written before the rule may hold them.
    const insert = core.db.prepare("INSERT INTO categories (uuid, client_id, description, created_at, updated_at) VALUES (lower(hex(randomblob(16))), ?, ?, 0, 0)");
    const a = Number(insert.run(mine, 'Tapas').lastInsertRowid);
    insert.run(mine, 'tapas');
    expect(core.categories.list(mine, false).map((c) => c.Description)).toEqual(['Tapas', 'tapas']);
    expect(core.categories.update(mine, a, { desc: 'Tapas del centro' }).Description).toBe('Tapas del centro');
  });

  it('a client application may not take the name of another (case and accents folded)', () => {
    const core = testCore();
    core.clients.create({ name: 'Guía de Madrid' });
    expect(refusal(() => core.clients.create({ name: 'guia de  MADRID' }))).toEqual({ code: 'ALREADY_EXISTS', parameter: 'name' });
    expect(core.clients.list()).toHaveLength(1);
  });
});
