import { describe, expect, it } from 'vitest';
import { mapHeader } from '../shared/import-columns.js';

/** The header names an import understands: the API's, an export's, and what people write in spreadsheets. */
describe('an import file’s header', () => {
  it('takes a singular “category” column as category names, and “category_id” as ids', () => {
    expect(mapHeader(['Name', 'Lat', 'Lng', 'Category']).mapping).toEqual(['name', 'lat', 'lng', 'category_names']);
    expect(mapHeader(['name', 'latitude', 'longitude', 'category_id']).mapping).toEqual(['name', 'lat', 'lng', 'categories']);
    expect(mapHeader(['name', 'lat', 'lng', 'category']).ignored).toEqual([]);
  });

  it('lets the first of two columns for the same thing win, and says the other is ignored', () => {
    const { mapping, ignored } = mapHeader(['name', 'lat', 'lng', 'category_names', 'category']);
    expect(mapping).toEqual(['name', 'lat', 'lng', 'category_names', undefined]);
    expect(ignored).toEqual(['category']);
  });
});
