import { app, shell, type Session, type WebContents } from 'electron';

/** The renderer's own origin: everything else is foreign. */
export const APP_SCHEME = 'poi-app';
export const APP_ORIGIN = `${APP_SCHEME}://renderer`;

export const isOwn = (url: string): boolean => url.startsWith(`${APP_ORIGIN}/`);

/** Opens http(s) links in the system browser; nothing else ever leaves the app. */
function openExternally(url: string): void {
  if (/^https?:\/\//i.test(url)) void shell.openExternal(url);
}

/**
 * Navigation, redirects, new windows and permission requests are refused. A link the user
 * clicks (the map's attribution, say) opens in the system browser instead: navigations reach
 * `will-navigate` only when the page itself asks for them, and our CSP lets no foreign script
 * run in the page to ask.
 */
export function harden(contents: WebContents): void {
  contents.setWindowOpenHandler(({ url }) => {
    openExternally(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (isOwn(url)) return;
    event.preventDefault();
    openExternally(url);
  });
  contents.on('will-redirect', (event, url) => {
    if (!isOwn(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

export function denyPermissions(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
}

/** Applies the rules above to every web contents the app ever creates. */
export function hardenApp(): void {
  app.on('web-contents-created', (_event, contents) => harden(contents));
}

