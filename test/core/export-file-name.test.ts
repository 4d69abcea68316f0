import { describe, expect, it } from 'vitest';
import { poisFileName } from '../../shared/file-formats.js';
import { testCore } from '../support/core.js';

const NOV_27 = Date.UTC(2026, 10, 27, 15, 30);

describe("an export's file name", () => {
  it("carries the client's name, made safe for a file name, and the day", () => {
    expect(poisFileName('csv', 'Valencia Tours', NOV_27)).toBe('pois-Valencia-Tours-2026-11-27.csv');
    expect(poisFileName('geojson', 'Acme/Sur: Ltd.', NOV_27)).toBe('pois-Acme-Sur-Ltd-2026-11-27.geojson');
    // No way out of the folder, no hidden file, no separator of any system.
    expect(poisFileName('csv', '../../etc/passwd', NOV_27)).toBe('pois-etc-passwd-2026-11-27.csv');
    expect(poisFileName('csv', '..', NOV_27)).toBe('pois-client-2026-11-27.csv');
    expect(poisFileName('csv', 'a\\b|c?d*e<f>g"h', NOV_27)).toBe('pois-a-b-c-d-e-f-g-h-2026-11-27.csv');
    // Letters of any script are kept as they are (composed, one form whatever was typed).
    expect(poisFileName('csv', '東京 観光', NOV_27)).toBe('pois-東京-観光-2026-11-27.csv');
    expect(poisFileName('csv', 'Café Ōsaka', NOV_27)).toBe('pois-Café-Ōsaka-2026-11-27.csv');
    expect(poisFileName('csv', 'Cafe\u0301', NOV_27)).toBe('pois-Café-2026-11-27.csv');
    expect(poisFileName('csv', 'Мой клиент №1', NOV_27)).toBe('pois-Мой-клиент-1-2026-11-27.csv');
    // Control characters and tabs go; a long name is cut, never in the middle of a letter.
    expect(poisFileName('csv', 'a\tb\u0000c\n', NOV_27)).toBe('pois-a-b-c-2026-11-27.csv');
    const long = poisFileName('csv', '😀'.repeat(100), NOV_27);
    expect(long).toBe('pois-client-2026-11-27.csv');
    const longName = poisFileName('csv', 'ж'.repeat(200), NOV_27);
    expect([...longName.slice('pois-'.length, -'-2026-11-27.csv'.length)]).toHaveLength(60);
  });

  it("names an export job's file after its client", async () => {
    const core = testCore();
    try {
      const { client_id: clientId } = core.clients.create({ name: 'Tours / Ruta. del Sol' });
      const ended = await core.jobs.whenDone(core.startExport(clientId, 'csv', { csvFlavour: 'plain' }).id);
      expect(ended.kind === 'export' && ended.report?.fileName).toBe(`pois-Tours-Ruta-del-Sol-${new Date(core.clock.now()).toISOString().slice(0, 10)}.csv`);
    } finally {
      core.close();
    }
  });
});
