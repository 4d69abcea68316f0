/**
 * Which links the desktop app hands to the system browser. Pure, and free of electron, so that
 * it is tested where Electron cannot run.
 *
 * Electron tells neither `will-navigate` nor the window-open handler whether a person asked for
 * the navigation, so those are refused outright; the only way out is the renderer's click on a
 * link (the `app.openExternal` operation), sent with the page's user activation as the preload
 * read it, and checked again here.
 */
export type LinkDecision = { open: true; url: string } | { open: false; reason: string };

/** Longer than any real link; a URL this long is not something a person clicked on purpose. */
const MAX_LENGTH = 2048;
const SCHEMES = new Set(['http:', 'https:']);

export function externalLink(raw: string, userActivated: boolean): LinkDecision {
  if (!userActivated) return { open: false, reason: 'a link opens in the browser only when you click it' };
  // URL() would quietly drop surrounding spaces, tabs and newlines: refuse them instead.
  if (raw.length === 0 || raw.length > MAX_LENGTH || /[\u0000-\u0020\u007f]/.test(raw)) {
    return { open: false, reason: 'not a link the app opens' };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { open: false, reason: 'not a link the app opens' };
  }
  if (!SCHEMES.has(url.protocol)) return { open: false, reason: `${url.protocol} links are not opened; only http and https` };
  if (url.username !== '' || url.password !== '') {
    return { open: false, reason: 'links with a user name or password in them are not opened' };
  }
  return { open: true, url: url.href };
}
