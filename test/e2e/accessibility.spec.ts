/// <reference lib="dom" />
import { AxeBuilder } from '@axe-core/playwright';
import type { PoiReply } from '../../shared/wire.js';
import { centreOn, consoleOp, expect, forEachPanel, test, type Page } from './fixtures.js';

test.describe.configure({ mode: 'serial' });

/**
 * axe-core on the whole page with every panel open in turn, a POI's details and its forms, and
 * the dialogs and popovers that open from the page (the keyboard shortcuts, Map layers), on a
 * desktop window and a phone. The confirmations and the console token's dialog are audited in
 * dialogs.spec.ts. axe cannot see focus order or touch: keyboard-budget.spec.ts and
 * touch-targets.spec.ts measure those.
 */
const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 800 },
];

async function violations(page: Page): Promise<string[]> {
  const axe = await new AxeBuilder({ page }).analyze();
  return axe.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')})`);
}

for (const size of SIZES) {
  test(`no accessibility violations on any panel, form or dialog at ${size.width} px`, async ({ app: page, info }) => {
    await page.setViewportSize(size);
    const poi = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 52.52, lng: 13.405, name: `Audited at ${size.width}`, categories: [7], geocode: false } });
    await centreOn(page, 52.52, 13.405, 16);
    const found: Record<string, string[]> = {};
    const audit = async (where: string): Promise<void> => {
      const list = await violations(page);
      if (list.length) found[where] = list;
    };
    await forEachPanel(page, 'click', audit);
    await page.getByRole('button', { name: `Audited at ${size.width}` }).click();
    await expect(page.getByRole('region', { name: 'POI details' })).toBeVisible();
    await audit('POI details');
    await page.getByRole('region', { name: 'POI details' }).getByRole('button', { name: 'Edit' }).click();
    await expect(page.getByRole('form', { name: 'Edit POI' })).toBeVisible();
    await audit('Edit POI');
    await page.getByRole('form', { name: 'Edit POI' }).getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('toolbar', { name: 'Panels' }).getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('button', { name: 'Add a POI at the map centre' }).click();
    await expect(page.getByRole('form', { name: 'Add POI' })).toBeVisible();
    await audit('Add POI');
    await page.getByRole('form', { name: 'Add POI' }).getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Map layers' }).click();
    await expect(page.getByRole('region', { name: 'Map layers' })).toBeVisible();
    await audit('Map layers');
    await page.keyboard.press('Escape');
    await page.locator('.leaflet-container').focus();
    await page.keyboard.press('Shift+?');
    await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
    await audit('Keyboard shortcuts');
    await page.keyboard.press('Escape');

    expect(found).toEqual({});
    await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: poi.id });
  });
}
