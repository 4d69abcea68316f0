/**
 * The app's keyboard shortcuts, in the manner of iD's: single keys, taken only when no text field,
 * list or dialog has the keyboard. The key handler (App.tsx) and the help dialog (`?`) both derive
 * from this list; keys that only a focused control answers are listed for the help alone.
 */
export const SHORTCUTS = [
  { id: 'help', keys: ['?'], does: 'Show these keyboard shortcuts' },
  { id: 'add', keys: ['A'], does: 'Add a POI at the map centre' },
  { id: 'here', keys: ['P'], does: 'Add a POI at my position (from the location source chosen in Settings)' },
  { id: 'search', keys: ['/'], does: 'Search the POIs' },
  { id: 'layers', keys: ['L'], does: 'Open or close the map layers' },
  { id: 'next', keys: [']'], does: 'Open the next POI on the map (left to right, top to bottom)' },
  { id: 'previous', keys: ['['], does: 'Open the previous POI on the map' },
  { id: 'edit', keys: ['E'], does: 'Edit the POI that is open' },
  { id: 'map', keys: ['M'], does: 'Put the keyboard on the map: arrow keys pan, + and − zoom' },
] as const;

/** Keys that a focused control answers: in the help, not in the handler. */
export const CONTROL_KEYS = [
  { keys: ['Tab'], does: 'From the map, to its pins (one stop for all of them)' },
  { keys: ['←', '↑', '→', '↓'], does: 'Between the pins, to the nearest one that way; between the panel buttons' },
  { keys: ['Enter'], does: 'Open the pin (or zoom into the group of pins) that has the focus' },
  { keys: ['Ctrl', 'Enter'], does: 'Save the POI form, from any of its fields' },
  { keys: ['Esc'], does: 'Close what is open (asks first when something typed would be lost)' },
] as const;

export type ShortcutId = (typeof SHORTCUTS)[number]['id'];

/** The shortcut a key press stands for, if any (letters either case; no Ctrl, Alt or Cmd). */
export function shortcutOf(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey'>): ShortcutId | undefined {
  if (e.ctrlKey || e.metaKey || e.altKey) return undefined;
  const key = e.key.length === 1 ? e.key.toUpperCase() : e.key;
  return SHORTCUTS.find((s) => s.keys.some((k) => k === key))?.id;
}

/** Whether the key press belongs to what has focus (typing, a list, a dialog) rather than to the app. */
export function keyBelongsToFocus(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.closest('input, textarea, select, [role="dialog"], [role="alertdialog"], dialog')) return true;
  return false;
}
