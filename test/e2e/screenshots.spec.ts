import { basemapDrawn, centreOn, consoleOp, expect, screenshotPath, test } from './fixtures.js';

/** The README's picture of the map: a few hundred POIs around Madrid, clustered. */
test('screenshot: the map with POIs', async ({ app: page, info }) => {
  const add = (lat: number, lng: number, name: string) => consoleOp(page, 'pois.add', { clientId: info.clientId, fields: { lat, lng, name, categories: [1] } });
  const places: Array<[number, number, string]> = [
    [40.4169, -3.7035, 'Puerta del Sol'],
    [40.4138, -3.6921, 'Museo del Prado'],
    [40.4153, -3.6845, 'Parque del Retiro'],
    [40.418, -3.7143, 'Palacio Real'],
    [40.4237, -3.7122, 'Templo de Debod'],
    [40.4203, -3.7058, 'Gran Vía'],
  ];
  for (const [lat, lng, name] of places) await add(lat, lng, name);
  for (let i = 0; i < 200; i++) {
    const angle = (i * 137.5 * Math.PI) / 180;
    const r = 0.05 + 3.2 * Math.sqrt(i / 200);
    await add(40.42 + r * Math.sin(angle), -3.7 + r * 1.3 * Math.cos(angle), `Sample POI ${i + 1}`);
  }
  await centreOn(page, 40.2, -3.7, 6);
  await expect(page.locator('.poi-cluster').first()).toBeVisible();
  await basemapDrawn(page);
  await page.screenshot({ path: screenshotPath('map') });
});
