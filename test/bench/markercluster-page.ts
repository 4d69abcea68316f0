import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const leafletDir = dirname(require.resolve('leaflet/package.json'));
const clusterDir = dirname(require.resolve('leaflet.markercluster/package.json'));

/**
 * The baseline: the same POIs drawn the usual way, every marker handed to Leaflet.markercluster
 * in the browser. Marks `mc-first-draw` once the clustered map is painted.
 */
const PAGE = `<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="/leaflet.css"><link rel="stylesheet" href="/MarkerCluster.css"><link rel="stylesheet" href="/MarkerCluster.Default.css">
<style>html,body,#map{height:100%;margin:0}</style></head><body><div id="map"></div>
<script src="/leaflet.js"></script><script src="/leaflet.markercluster.js"></script>
<script>
(async () => {
  const map = L.map('map', { maxZoom: 19 }).setView([40, -3], 6);
  const points = await (await fetch('/points.json')).json();
  const group = L.markerClusterGroup();
  const icon = L.divIcon({ className: 'poi', iconSize: [12, 12] });
  group.addLayers(points.map(([lat, lng, name]) => L.marker([lat, lng], { icon, title: name })));
  map.addLayer(group);
  window.benchMap = map;
  requestAnimationFrame(() => requestAnimationFrame(() => performance.mark('mc-first-draw')));
})();
</script></body></html>`;

export async function startMarkerClusterPage(points: Array<[number, number, string]>): Promise<{ url: string; server: Server }> {
  const files: Record<string, [string, string]> = {
    '/': ['text/html', PAGE],
    '/leaflet.css': ['text/css', readFileSync(join(leafletDir, 'dist', 'leaflet.css'), 'utf8')],
    '/leaflet.js': ['text/javascript', readFileSync(join(leafletDir, 'dist', 'leaflet.js'), 'utf8')],
    '/MarkerCluster.css': ['text/css', readFileSync(join(clusterDir, 'dist', 'MarkerCluster.css'), 'utf8')],
    '/MarkerCluster.Default.css': ['text/css', readFileSync(join(clusterDir, 'dist', 'MarkerCluster.Default.css'), 'utf8')],
    '/leaflet.markercluster.js': ['text/javascript', readFileSync(join(clusterDir, 'dist', 'leaflet.markercluster.js'), 'utf8')],
    '/points.json': ['application/json', JSON.stringify(points)],
  };
  const server = createServer((req, res) => {
    const file = files[req.url ?? '/'];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, server };
}
