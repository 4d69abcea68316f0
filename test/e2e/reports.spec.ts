/// <reference lib="dom" />
import { join } from 'node:path';
import { addWarningInput } from '../../shared/schemas/pois.js';
import type { PoiReply } from '../../shared/wire.js';
import { openCore } from '../support/core.js';
import { consoleOp, expect, test } from './fixtures.js';

test('a WRONG_INFO report shows its proposal beside the current values, and Apply writes it and closes the report', async ({ app: page, info }) => {
  const poi = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 37.3891, lng: -5.9845, name: 'Cafe Giralda', phone: '+34 1', categories: [2], geocode: false } });
  // A member's report, as it arrives through the API: here written by another process on the same data folder.
  const other = openCore({ file: join(info.dataDir, 'poi.sqlite') });
  other.warnings.add(null, addWarningInput.parse({ poi: poi.id, type: 'WRONG_INFO', name: 'Café Giralda', phone: '+34 954 00 00 00' }));
  other.close();
  try {
    await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Reports' }).click();
    const list = page.getByRole('list', { name: 'Open reports, oldest first' });
    const report = list.getByRole('listitem').filter({ hasText: 'Cafe Giralda' });
    await expect(report).toContainText('Wrong information');
    // Sent with the client's administrator token (no member): said so, not as an id.
    await expect(report).toContainText('by the client’s administrator');
    const diff = report.getByRole('table', { name: 'Proposed changes' });
    await expect(diff.getByRole('row', { name: /Name/ })).toContainText('Cafe Giralda');
    await expect(diff.getByRole('row', { name: /Name/ })).toContainText('Café Giralda');
    await expect(diff.getByRole('row', { name: /Phone/ })).toContainText('+34 954 00 00 00');
    await report.getByRole('button', { name: 'Apply' }).click();
    await expect(list.getByRole('listitem').filter({ hasText: 'Giralda' })).toHaveCount(0);
    expect(await consoleOp<PoiReply>(page, 'pois.get', { clientId: info.clientId, poi: poi.id })).toMatchObject({ name: 'Café Giralda', phone: '+34 954 00 00 00' });
  } finally {
    await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: poi.id });
  }
});
