/**
 * NMEA 0183's checksum: the XOR of every character between `$` and `*`, in two hex digits after
 * the `*`. Checked here because nmea-simple decodes a sentence whose checksum is wrong (and says
 * so only for the sentences it knows).
 */
const SENTENCE = /^\$([^*$]{1,1000})\*([0-9A-Fa-f]{2})$/;

const xor = (body: string): number => {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum ^= body.charCodeAt(i);
  return sum;
};

export function checksumHolds(line: string): boolean {
  const m = SENTENCE.exec(line);
  return m !== null && xor(m[1]!) === Number.parseInt(m[2]!, 16);
}

/** `$` + body + its checksum: how a receiver writes a sentence (tests write recordings with it). */
export const withChecksum = (body: string): string => `$${body}*${xor(body).toString(16).toUpperCase().padStart(2, '0')}`;
