/** An arrow key's direction on screen. */
export type Direction = 'ArrowLeft' | 'ArrowRight' | 'ArrowUp' | 'ArrowDown';

export const isDirection = (key: string): key is Direction => key === 'ArrowLeft' || key === 'ArrowRight' || key === 'ArrowUp' || key === 'ArrowDown';

interface Placed<K> {
  key: K;
  x: number;
  y: number;
}

/**
 * The pin an arrow key moves to from `from`: the nearest one ahead in that direction, where being
 * off to the side counts twice (so ArrowRight prefers the pin straight to the right over a nearer
 * one far below). Pins at the very same point are ahead of each other by their order, so that every
 * pin can be reached. Undefined when none lies that way: focus stays.
 */
export function pinToward<K>(from: Placed<K>, pins: readonly Placed<K>[], direction: Direction): K | undefined {
  const horizontal = direction === 'ArrowLeft' || direction === 'ArrowRight';
  const forward = direction === 'ArrowRight' || direction === 'ArrowDown' ? 1 : -1;
  const order = pins.findIndex((p) => p.key === from.key);
  let best: { key: K; score: number } | undefined;
  pins.forEach((pin, index) => {
    if (pin.key === from.key) return;
    const along = forward * (horizontal ? pin.x - from.x : pin.y - from.y);
    const across = Math.abs(horizontal ? pin.y - from.y : pin.x - from.x);
    const ahead = along > 0 || (along === 0 && across === 0 && forward * (index - order) > 0);
    if (!ahead) return;
    const score = along + 2 * across;
    if (!best || score < best.score) best = { key: pin.key, score };
  });
  return best?.key;
}
