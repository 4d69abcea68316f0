import { useRef, useState, type KeyboardEvent } from 'react';
import { TAB_KINDS, TAB_PANELS, type TabKind } from './panels';

interface Props {
  /** The panel shown, if it is one of these. */
  current: TabKind | undefined;
  onOpen: (kind: TabKind) => void;
}

const STEP: Record<string, (index: number, count: number) => number> = {
  ArrowRight: (i, n) => (i + 1) % n,
  ArrowDown: (i, n) => (i + 1) % n,
  ArrowLeft: (i, n) => (i - 1 + n) % n,
  ArrowUp: (i, n) => (i - 1 + n) % n,
  Home: () => 0,
  End: (_i, n) => n - 1,
};

/**
 * The panels' buttons as one toolbar: one Tab stop (the panel shown), arrow keys, Home and End
 * between them, Enter or Space to open. Eleven Tab stops stood between the map and the page's top.
 */
export function PanelButtons({ current, onOpen }: Props) {
  const [stop, setStop] = useState<TabKind>(current ?? 'search');
  const buttons = useRef(new Map<TabKind, HTMLButtonElement>());
  // The stop follows the panel shown unless the keyboard has moved it since.
  const [shown, setShown] = useState(current);
  if (shown !== current) {
    setShown(current);
    if (current) setStop(current);
  }

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const step = STEP[e.key];
    if (!step || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    const next = TAB_KINDS[step(TAB_KINDS.indexOf(stop), TAB_KINDS.length)]!;
    setStop(next);
    buttons.current.get(next)?.focus();
  };

  return (
    <nav aria-label="Panels">
      <div role="toolbar" aria-label="Panels" onKeyDown={onKeyDown}>
        {TAB_KINDS.map((kind) => (
          <button
            key={kind}
            ref={(el) => {
              if (el) buttons.current.set(kind, el);
              else buttons.current.delete(kind);
            }}
            type="button"
            tabIndex={kind === stop ? 0 : -1}
            aria-pressed={current === kind}
            onFocus={() => setStop(kind)}
            onClick={() => onOpen(kind)}
          >
            {TAB_PANELS[kind].label}
          </button>
        ))}
      </div>
    </nav>
  );
}
