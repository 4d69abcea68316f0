import { app, shell, type Session, type WebContents } from 'electron';
import { operations, type Answer } from '../../shared/contract.js';
import { errorBody, OK_BODY, type OkBody } from '../../shared/errors.js';
import { fromZod } from '../core/errors.js';
import { externalLink } from './external-links.js';

/** The renderer's own origin: everything else is foreign. */
export const APP_SCHEME = 'poi-app';
export const APP_ORIGIN = `${APP_SCHEME}://renderer`;

export const isOwn = (url: string): boolean => url.startsWith(`${APP_ORIGIN}/`);

/**
 * The `app.openExternal` operation: a link the user clicked in the app (the map's attribution,
 * say) opens in the system browser when `externalLink` allows it. `userActivated` is the page's
 * user activation as the preload read it when the call was made.
 */
export function openExternalLink(input: unknown, userActivated: boolean): Answer<OkBody> {
  const parsed = operations['app.openExternal'].safeParse(input ?? {});
  if (!parsed.success) return { ok: false, error: fromZod(parsed.error, input ?? {}).toBody() };
  const decision = externalLink(parsed.data.url, userActivated);
  if (!decision.open) return { ok: false, error: errorBody('FORBIDDEN', decision.reason, 'url') };
  void shell.openExternal(decision.url);
  return { ok: true, value: OK_BODY };
}

/**
 * Navigation, redirects, new windows and permission requests (but the location) are refused, and open nothing:
 * Electron does not say whether a person asked for them. Links leave the app only through
 * `openExternalLink`, from the renderer's click handler.
 */
function harden(contents: WebContents): void {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-navigate', (event, url) => {
    if (!isOwn(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isOwn(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/**
 * Every permission refused but the location, and that only to the app's own page: Add at my
 * position reads it when the person chose this device as the source (docs/field-guide.md#add-at-my-position).
 */
export function denyPermissions(session: Session): void {
  session.setPermissionRequestHandler((_contents, permission, callback, details) => callback(permission === 'geolocation' && isOwn(details.requestingUrl)));
  session.setPermissionCheckHandler((_contents, permission, origin) => permission === 'geolocation' && origin === APP_ORIGIN);
  session.setDevicePermissionHandler(() => false);
}

/** Applies the rules above to every web contents the app ever creates. */
export function hardenApp(): void {
  app.on('web-contents-created', (_event, contents) => harden(contents));
}

