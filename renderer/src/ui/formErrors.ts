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

interface Issue {
  path: readonly PropertyKey[];
  message: string;
}

/**
 * Every problem a schema found, each under the field its path ends in (`{ fields: { email } }`
 * goes under `email`); the first that no field claims goes above the form.
 */
export function checkedErrors<F extends string>(issues: readonly Issue[], fields: readonly F[]): FormErrors<F> {
  const byField = new Map<string, string>();
  let form: string | undefined;
  for (const issue of issues) {
    const field = [...issue.path].reverse().find((p): p is F => typeof p === 'string' && (fields as readonly string[]).includes(p));
    if (field !== undefined) {
      if (!byField.has(field)) byField.set(field, issue.message);
    } else {
      form ??= `${issue.path.map(String).join('.') || 'input'}: ${issue.message}`;
    }
  }
  return { field: (name) => byField.get(name), form };
}
