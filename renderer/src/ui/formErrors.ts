import { fieldError } from '../ui/errors';

/** Where a refusal goes: under the field whose wire name it names, else above the form. */
export interface FormErrors<F extends string> {
  field: (name: F) => string | undefined;
  form: string | undefined;
}

/** Splits a mutation's error between the given fields (wire names) and the form as a whole. */
export function formErrors<F extends string>(error: unknown, fields: readonly F[]): FormErrors<F> {
  const split = fieldError(error);
  if (!split) return { field: () => undefined, form: undefined };
  const parameter = split.parameter;
  if (parameter !== undefined && (fields as readonly string[]).includes(parameter)) {
    return { field: (name) => (name === parameter ? split.message : undefined), form: undefined };
  }
  // No field of this form claims it: show the whole message, parameter name included.
  return { field: () => undefined, form: error instanceof Error ? error.message : split.message };
}
