import { describe, expect, it } from 'vitest';
import { newUuid } from '../../main/core/store/new-uuid.js';

describe('newUuid', () => {
  it('is a version 7 UUID whose first 48 bits are the time, so ids sort by creation time', () => {
    const at = Date.UTC(2026, 10, 23, 17, 0, 0);
    const id = newUuid(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
    const later = [newUuid(at + 1), newUuid(at + 1000), newUuid(at + 86_400_000)];
    expect([...later, id].sort()).toEqual([id, ...later]);
  });

  it('keeps 74 random bits: 10,000 ids of the same millisecond are distinct', () => {
    const at = Date.now();
    expect(new Set(Array.from({ length: 10_000 }, () => newUuid(at))).size).toBe(10_000);
  });
});
