import { sampleMap } from '../build/sample-map.js';
import type { Core } from '../core/service.js';

/** On a first start, the sample city's package; a failure only costs the sample, never the start. */
export async function importSampleMap(core: Core, log: (line: string) => void): Promise<void> {
  try {
    const pkg = await core.maps.importSampleOnFirstStart(sampleMap());
    if (pkg) log(`Imported the sample offline map: ${pkg.name}`);
  } catch (error) {
    log(`The sample offline map was not imported: ${error instanceof Error ? error.message : String(error)}`);
  }
}
