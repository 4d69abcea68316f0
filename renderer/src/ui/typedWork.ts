type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

/** Each field's value when it first took the focus: what it held before the person changed it. */
const before = new WeakMap<Field, string>();

const isField = (el: EventTarget | null): el is Field => el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement;

const valueOf = (field: Field): string => {
  if (field instanceof HTMLSelectElement) return [...field.selectedOptions].map((o) => o.value).join('\n');
  if (field instanceof HTMLInputElement && (field.type === 'checkbox' || field.type === 'radio')) return String(field.checked);
  return field.value;
};

/**
 * Notes each field's value as it first takes the focus in `scope`. Not the fields' default
 * values: React writes a controlled field's value into its `value` attribute as it changes.
 */
export function watchTypedWork(scope: HTMLElement): () => void {
  const onFocus = (e: FocusEvent): void => {
    if (isField(e.target) && !before.has(e.target)) before.set(e.target, valueOf(e.target));
  };
  scope.addEventListener('focusin', onFocus);
  return () => scope.removeEventListener('focusin', onFocus);
}

/**
 * Whether anything typed or chosen in `scope` would be thrown away by closing it: a field whose
 * value differs from when it first took the focus, or a form that says so (`data-changed`).
 */
export function hasTypedWork(scope: HTMLElement | null): boolean {
  if (!scope) return false;
  if (scope.querySelector('form[data-changed="true"]')) return true;
  return [...scope.querySelectorAll<Field>('input, textarea, select')].some((field) => {
    const was = before.get(field);
    return was !== undefined && field.type !== 'search' && field.type !== 'file' && valueOf(field) !== was;
  });
}
