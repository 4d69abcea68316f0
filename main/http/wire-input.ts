import type { z } from 'zod';
import type { WireParams } from './params.js';

interface Shape {
  base: string;
  nullable: boolean;
}

type Def = { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType; shape?: Record<string, z.core.$ZodType> };
const defOf = (schema: z.core.$ZodType): Def => schema._zod.def as Def;

/** What a schema takes, below its wrappers: its base type, and whether null (an empty value) is accepted. */
function shapeOf(schema: z.core.$ZodType): Shape {
  let nullable = false;
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (def.type === 'nullable') nullable = true;
    if (def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else return { base: def.type, nullable };
  }
}

/** The keys of an object schema (through refinements and pipes) and what each takes. */
export function wireKeys(schema: z.core.$ZodType): Map<string, Shape> {
  let def = defOf(schema);
  while (!def.shape && def.type === 'pipe' && def.in) def = defOf(def.in);
  if (!def.shape) throw new Error(`an operation's input must be an object schema, not ${def.type}`);
  return new Map(Object.entries(def.shape).map(([key, value]) => [key, shapeOf(value)]));
}

/**
 * An operation's input, built from the request's parameters by its schema's keys, with the wire
 * habits of real clients: numbers as `40.0` or `1.0E-4`, id lists as `1,2`, booleans as `true`,
 * and an empty value meaning null (a deletion) where the schema accepts null, else "not given".
 * Path parameters (`{id}`) are given as they are. Nothing else of the request is read.
 */
export function wireInput(keys: ReadonlyMap<string, Shape>, params: WireParams, pathArgs: Readonly<Record<string, string>>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [key, { base, nullable }] of keys) {
    if (Object.hasOwn(pathArgs, key)) {
      input[key] = pathArgs[key];
      continue;
    }
    const value =
      base === 'number' ? params.nullableDecimal(key)
      : base === 'array' ? params.idList(key)
      : base === 'boolean' ? params.boolean(key)
      : params.nullableText(key);
    input[key] = value === null && !nullable ? undefined : value;
  }
  return input;
}
