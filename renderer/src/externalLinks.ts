import { BRIDGE_GLOBAL } from '../../shared/contract';
import { call } from './transport';

/**
 * In the desktop app, a click on a link to another site (the map's attribution, say) opens it in
 * the system browser: the window never navigates away, and the shell opens nothing but what a
 * click asked for (it refuses every other navigation). In a browser, links stay plain links.
 */
export function openLinksInSystemBrowser(): void {
  if (!window[BRIDGE_GLOBAL]) return;
  // Capturing: a widget that stops the click's propagation (a map control) cannot let it through.
  document.addEventListener(
    'click',
    (event) => {
      if (event.button !== 0) return;
      const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
      if (!(link instanceof HTMLAnchorElement) || link.origin === window.location.origin) return;
      event.preventDefault();
      call('app.openExternal', { url: link.href }).catch((error: unknown) => console.warn('link not opened:', error));
    },
    true,
  );
}
