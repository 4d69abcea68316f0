import { ConsoleError } from '../transport';

/** Splits a refusal into the field it concerns (by wire name) and a message for that field. */
export function fieldError(error: unknown): { parameter?: string; message: string } | undefined {
  if (!error) return undefined;
  if (error instanceof ConsoleError) {
    const { parameter, message, description } = error.body;
    const text = message ?? description;
    // The server names the parameter first ("lat must be between..."): drop it under the field.
    const forField = parameter && text.startsWith(`${parameter} `) ? text.slice(parameter.length + 1) : text;
    return parameter ? { parameter, message: forField } : { message: text };
  }
  return { message: error instanceof Error ? error.message : String(error) };
}
