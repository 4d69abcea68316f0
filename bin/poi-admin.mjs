#!/usr/bin/env node
// The CLI without npm around it: `npx poi-admin pois export … > f.geojson` writes only the export
// (`npm run cli --` prints npm's banner to standard output first). The sources are TypeScript,
// loaded through tsx, as `npm run cli` does.
import { register } from 'tsx/esm/api';

register();
await import('../main/cli.ts');
