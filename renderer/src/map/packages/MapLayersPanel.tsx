import * as Popover from '@radix-ui/react-popover';
import { useRef, useState } from 'react';
import type { MapPackage } from '../../../../shared/maps';
import { inBrowserMode } from '../../transport';
import { useConfirm } from '../../ui/Confirm';
import { FileInput } from '../../ui/FileInput';
import { changeLayers, showPackage, useLayerChoice } from './layerChoice';
import { useRemovePackage, type Upload } from './mutations';
import { useMapPackages } from './queries';

const size = (bytes: number): string =>
  bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;

interface Props {
  open: boolean;
  onOpen: (open: boolean) => void;
  /** The online tile server's host, for its line. */
  onlineName: string;
  upload: { upload: Upload | undefined; error: string | undefined; start: (file: File) => void; pick: () => void; picking: boolean; cancel: () => void; dismiss: () => void };
  onGoTo: (pkg: MapPackage) => void;
}

/**
 * The map's layers: the online tile server, each offline package (import, show, go to, remove)
 * and the bundled overview; several at once, packages over the others. A popover under the
 * map's top-right toggle, every control labelled and reachable by keyboard: Tab goes from the
 * toggle into it, Escape folds it and gives focus back to the toggle.
 */
export function MapLayersPanel(props: Props) {
  const confirm = useConfirm();
  const choice = useLayerChoice();
  const packages = useMapPackages();
  const remover = useRemovePackage();
  const fileInput = useRef<HTMLInputElement>(null);
  const [removing, setRemoving] = useState<string | undefined>();
  const { upload, error, start, cancel, dismiss } = props.upload;
  const importError = error ?? (removing ? remover.errors.form : undefined);

  const pick = (): void => {
    if (inBrowserMode) fileInput.current?.click();
    else props.upload.pick();
  };

  return (
    <Popover.Root open={props.open} onOpenChange={props.onOpen}>
      <div className="map-layers">
        {/* A disclosure's toggle (expanded or not), not a menu's: Radix would say it opens a dialog. */}
        <Popover.Trigger className="map-layers-toggle" aria-haspopup={undefined}>
          Map layers
        </Popover.Trigger>
        {/* Not in a portal: next to its toggle in the page's order, Tab goes on into it. */}
        <Popover.Content
          className="map-layers-panel"
          role="region"
          aria-label="Map layers"
          side="bottom"
          align="end"
          sideOffset={6}
          collisionPadding={8}
          // A disclosure: opening it (or a file dropped on the map opening it) leaves focus where it was.
          onOpenAutoFocus={(e) => e.preventDefault()}
          // It stays open while the map under it is moved, clicked and looked at (that is what its
          // choices change), and while an import shows its progress: the toggle or Escape folds it.
          onInteractOutside={(e) => e.preventDefault()}
        >
          <fieldset>
            <legend>Show on the map</legend>
            <label>
              <input type="checkbox" checked={choice.online} onChange={(e) => changeLayers((c) => ({ ...c, online: e.target.checked }))} />
              Online tiles ({props.onlineName})
            </label>
            {packages.data?.map((pkg) => (
              <div key={pkg.id} className="map-layers-package">
                <label>
                  <input type="checkbox" checked={!choice.hidden.includes(pkg.id)} onChange={(e) => showPackage(pkg.id, e.target.checked)} />
                  {pkg.name}
                  <span className="map-layers-meta">
                    {' '}
                    {pkg.kind}, zoom {pkg.minZoom}–{pkg.maxZoom}, {size(pkg.bytes)}
                  </span>
                </label>
                <button type="button" onClick={() => props.onGoTo(pkg)} aria-label={`Go to ${pkg.name}`}>
                  Go to
                </button>
                <button
                  type="button"
                  aria-label={`Remove ${pkg.name}`}
                  disabled={remover.isPending}
                  onClick={() => {
                    const question = { title: 'Remove a map package', text: `Remove the map package “${pkg.name}” from this computer?`, yes: 'Remove package', no: 'Keep it', destructive: true };
                    void confirm(question).then((yes) => {
                      if (!yes) return;
                      setRemoving(pkg.id);
                      remover.mutate({ id: pkg.id });
                    });
                  }}
                >
                  Remove
                </button>
              </div>
            ))}
            <label>
              <input type="checkbox" checked={choice.overview} onChange={(e) => changeLayers((c) => ({ ...c, overview: e.target.checked }))} />
              World overview (bundled)
            </label>
          </fieldset>
          <div className="map-layers-import">
            <button type="button" onClick={pick} disabled={upload !== undefined || props.upload.picking}>
              Import a map package…
            </button>
            <FileInput ref={fileInput} accept=".mbtiles,.pmtiles" label="Map package file (.mbtiles or .pmtiles)" onFile={(file) => void start(file)} />
            <p className="map-layers-hint">MBTiles (raster or vector) or PMTiles. You can also drop the file on the map.</p>
            {upload && (
              <div className="map-layers-progress">
                <label>
                  Importing {upload.file}: {upload.step}
                  {/* No value: the bar says work goes on where its share cannot be told. */}
                  {upload.progress === null ? <progress max={1} /> : <progress max={1} value={upload.progress} />}
                </label>
                <button type="button" onClick={cancel}>
                  Cancel
                </button>
              </div>
            )}
            {importError && (
              <div className="map-layers-error" role="alert">
                <p>{importError}</p>
                <button type="button" onClick={() => { dismiss(); remover.reset(); setRemoving(undefined); }}>
                  Dismiss
                </button>
              </div>
            )}
          </div>
        </Popover.Content>
      </div>
    </Popover.Root>
  );
}
