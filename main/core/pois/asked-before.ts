/**
 * Slots of the table of keys asked once. A key asked again after n others is still there with a
 * chance of e^(-n/SLOTS): a POI asked again among a thousand others almost surely (0.89), one
 * asked again only after all of 100,000 others almost never, so that a cache stores what is asked
 * again soon and nothing of a walk through every id or of URLs that are never asked twice.
 */
const SLOTS = 8_192;

/**
 * The admission rule of the caches of get.json (reply-cache.ts, main/http/reply-memo.ts): a key is
 * stored only once it has been asked twice, so that a one-off costs one slot of a fixed table
 * rather than a copy of its reply, an entry and garbage. Keys are non-zero 32-bit numbers (an id,
 * or `hashText` of a URL); two that share a slot push each other out, and two equal hashes of
 * different URLs only let a reply be stored a little early.
 */
export class AskedBefore {
  private readonly slots = new Int32Array(SLOTS);

  /** Whether `key` was asked since its slot last held another key; it is marked asked in any case. */
  again(key: number): boolean {
    const slot = key & (SLOTS - 1);
    if (this.slots[slot] === key) return true;
    this.slots[slot] = key;
    return false;
  }
}

/** FNV-1a of the text's UTF-16 code units, never 0 (an empty slot). */
export function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash | 0 || 1;
}
