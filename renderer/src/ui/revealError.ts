/**
 * After a refused submit, takes the person to what was refused: focus on the first field marked
 * invalid (its error is its description), else the form's own error scrolled into view. A long
 * form's error may otherwise sit below the fold while focus stays on the submit button.
 */
export function revealFirstError(form: HTMLFormElement | null): void {
  if (!form) return;
  const field = form.querySelector<HTMLElement>('[aria-invalid="true"]');
  if (field) {
    field.focus();
    return;
  }
  form.querySelector('[role="alert"], .form-error')?.scrollIntoView({ block: 'nearest' });
}
