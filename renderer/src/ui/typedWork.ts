/**
 * Whether anything typed or chosen in `scope` differs from what its fields were drawn with (their
 * default values): what closing it would throw away. Read from the fields themselves, so that every
 * form is covered without declaring it; a form may also say so itself (`data-changed="true"`).
 */
export function hasTypedWork(scope: HTMLElement | null): boolean {
  if (!scope) return false;
  if (scope.querySelector('form[data-changed="true"]')) return true;
  for (const field of scope.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>('input, textarea, select')) {
    if (field instanceof HTMLSelectElement) {
      if ([...field.options].some((o) => o.selected !== o.defaultSelected)) return true;
    } else if (field instanceof HTMLInputElement && (field.type === 'checkbox' || field.type === 'radio')) {
      if (field.checked !== field.defaultChecked) return true;
    } else if (field.type !== 'file' && field.type !== 'hidden' && field.value !== field.defaultValue) return true;
  }
  return false;
}
