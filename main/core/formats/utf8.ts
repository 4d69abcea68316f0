import { isUtf8 } from 'node:buffer';

/** A piece of a byte stream: valid UTF-8 ending at a character's end, or one invalid sequence, by its offset in the stream. */
export type Utf8Piece = { text: Buffer } | { invalidAt: number };

const EMPTY = Buffer.alloc(0);

/**
 * The length of the well-formed UTF-8 character at `i` (its lead byte not ASCII); 0 when the
 * bytes end inside one that is well formed so far; minus the length of the invalid sequence
 * there otherwise (the lead and the continuation bytes that fit it, as decoders replace them).
 */
function characterAt(bytes: Buffer, i: number): number {
  const lead = bytes[i]!;
  let continuations: number;
  // The second byte's range is narrower after some leads: no overlong forms, no surrogates, nothing past U+10FFFF.
  let low = 0x80;
  let high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) continuations = 1;
  else if (lead >= 0xe0 && lead <= 0xef) {
    continuations = 2;
    if (lead === 0xe0) low = 0xa0;
    else if (lead === 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    continuations = 3;
    if (lead === 0xf0) low = 0x90;
    else if (lead === 0xf4) high = 0x8f;
  } else return -1;
  for (let k = 1; k <= continuations; k++) {
    if (i + k >= bytes.length) return 0;
    const byte = bytes[i + k]!;
    if (byte < low || byte > high) return -k;
    low = 0x80;
    high = 0xbf;
  }
  return continuations + 1;
}

/** Where a character the bytes may end inside starts (their length when they end at a character's end). */
function tailStart(bytes: Buffer): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 3); i--) {
    const byte = bytes[i]!;
    if (byte < 0x80) return bytes.length;
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return bytes.length - i < length ? i : bytes.length;
    }
  }
  return bytes.length;
}

/**
 * Finds invalid UTF-8 in a byte stream as it arrives, chunk by chunk, byte-exactly: a decoder
 * would turn each invalid sequence into U+FFFD, which a file may also hold as a character of its
 * own. A character cut by a chunk's end is not invalid: its bytes wait for the next chunk.
 * Mostly valid text costs one native check per chunk.
 */
export class Utf8Check {
  /** The bytes of a character the last chunk ended inside. */
  private carry: Buffer = EMPTY;
  /** The stream offset just past the last chunk. */
  private offset = 0;

  push(chunk: Buffer): Utf8Piece[] {
    const bytes = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const start = this.offset - this.carry.length;
    this.offset += chunk.length;
    const cut = tailStart(bytes);
    if (isUtf8(bytes.subarray(0, cut))) {
      // Copied: a slice would keep the whole chunk alive.
      this.carry = cut < bytes.length ? Buffer.from(bytes.subarray(cut)) : EMPTY;
      return cut > 0 ? [{ text: bytes.subarray(0, cut) }] : [];
    }
    return this.scan(bytes, start, false);
  }

  /** At the stream's end: the invalid sequences among the bytes still waiting, a character they end inside included. */
  end(): Utf8Piece[] {
    const pieces = this.scan(this.carry, this.offset - this.carry.length, true);
    this.carry = EMPTY;
    return pieces;
  }

  /** Byte by byte; what a character cut by the end starts with waits for more bytes, unless there are none. */
  private scan(bytes: Buffer, start: number, last: boolean): Utf8Piece[] {
    const pieces: Utf8Piece[] = [];
    let run = 0;
    let i = 0;
    while (i < bytes.length) {
      if (bytes[i]! < 0x80) {
        i++;
        continue;
      }
      const length = characterAt(bytes, i);
      if (length > 0) i += length;
      else if (length === 0 && !last) break;
      else {
        if (i > run) pieces.push({ text: bytes.subarray(run, i) });
        pieces.push({ invalidAt: start + i });
        i = length === 0 ? bytes.length : i - length;
        run = i;
      }
    }
    if (i > run) pieces.push({ text: bytes.subarray(run, i) });
    this.carry = i < bytes.length ? Buffer.from(bytes.subarray(i)) : EMPTY;
    return pieces;
  }
}
