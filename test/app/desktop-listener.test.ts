import { afterEach, describe, expect, it } from 'vitest';
import { createInvoke } from '../../main/app/console.js';
import { desktopListener, type DesktopListener } from '../../main/app/desktop-listener.js';
import type { Core } from '../../main/core/service.js';
import { testCore } from '../support/core.js';
import { freePort } from '../support/free-port.js';

/**
 * The desktop app's listener loads the HTTP framework only when first needed (the bundle side is
 * checked in test/desktop/packaging.test.ts); here, that it still behaves as the listener does,
 * over a real core and real ports.
 */
const reach = (port: number): Promise<number | 'nothing'> =>
  fetch(`http://127.0.0.1:${port}/1/users/me/show.json`).then((r) => r.status, () => 'nothing' as const);

let core: Core;
let listener: DesktopListener;
afterEach(async () => {
  await listener.stop();
  core.close();
});

describe('the desktop listener', () => {
  it('stays off at start by default, and the console sees it stopped', async () => {
    core = testCore();
    listener = desktopListener(core);
    await listener.restore();
    const invoke = createInvoke(core, listener, () => undefined);
    expect(await invoke('listener.status', {})).toEqual({
      ok: true,
      value: expect.objectContaining({ enabled: false, state: 'stopped', addresses: [], error: null, configurable: true }),
    });
  });

  it('listens once turned on from the console, and stops', async () => {
    core = testCore();
    listener = desktopListener(core);
    const port = await freePort();
    const invoke = createInvoke(core, listener, () => undefined);
    expect(await invoke('listener.configure', { enabled: true, port, scope: 'local' })).toMatchObject({ ok: true, value: { state: 'listening', port } });
    expect(await reach(port)).toBe(401);
    await listener.stop();
    expect(await reach(port)).toBe('nothing');
  });

  it('listens at start when the saved settings say so', async () => {
    core = testCore();
    const port = await freePort();
    core.settings.setListener({ enabled: true, port, scope: 'local' });
    listener = desktopListener(core);
    await listener.restore();
    expect(await listener.status()).toMatchObject({ state: 'listening', port });
    expect(await reach(port)).toBe(401);
  });
});
