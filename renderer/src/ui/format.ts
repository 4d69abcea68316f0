const pad = (n: number, width = 2): string => String(Math.trunc(Math.abs(n))).padStart(width, '0');

/**
 * The value of a datetime-local input ("1990-05-06T07:08") as ISO 8601 with the browser's local
 * offset for that instant ("1990-05-06T07:08:00.000+02:00"). Empty gives undefined (omit the
 * field); an unreadable value is passed on as typed so that the server names the problem.
 */
export function localInputToIso(value: string): string | undefined {
  if (value.trim() === '') return undefined;
  // A date-time without an offset is read as local time.
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  const offset = -date.getTimezoneOffset();
  const year = date.getFullYear();
  const yearText = year < 0 ? `-${pad(year, 6)}` : pad(year, 4);
  return (
    `${yearText}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}` +
    `${offset < 0 ? '-' : '+'}${pad(offset / 60)}:${pad(offset % 60)}`
  );
}

/** A number field's text as a number, or undefined when left empty (omit the field). */
export function optionalNumber(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text);
}

/** A wire date-time for people, in the browser's locale; the text itself when unreadable. */
export function readableDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/**
 * A latitude or longitude for people: at most 6 decimals (about 0.1 m, finer than any phone's
 * fix); a drag on the map gives 14, which are noise. Not a number: shown as it came.
 */
export function coordinate(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(Number(value.toFixed(6))) : String(value);
}

/** A position for people: "latitude, longitude", each as coordinate() shows it. */
export function position(lat: number, lng: number): string {
  return `${coordinate(lat)}, ${coordinate(lng)}`;
}
