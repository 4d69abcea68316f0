import type { z } from 'zod';
import type { ImportReport } from './exports.js';
import { POI_FIELDS } from './poi-fields.js';
import { TEXT_LIMITS } from './schemas/pois.js';
import { foldText } from './text-fold.js';

/**
 * Why a row of an import (or a field of the POI form) is refused, by cause: the words are made
 * from it by `sayRefusal`, one sentence that names the field as the form labels it and says what
 * to do (the GOV.UK style of error message, docs/admin-guide.md#the-import-report), and refusals
 * of one cause are told together by `sayRefusalGroup`. The `/1/` API keeps its own messages
 * (docs/api-spec.md): old clients parse them.
 */
export type Refusal =
  | { cause: 'missing'; field: string }
  | { cause: 'not-a-number'; field: string; value: string }
  | { cause: 'out-of-range'; field: string; rule: string; value: string }
  | { cause: 'too-long'; field: string; max: number; length: number }
  | { cause: 'not-unicode'; field: string }
  /** A rule of the field's own, in its own words ("must be 0 or more"). */
  | { cause: 'rule'; field: string; rule: string }
  | { cause: 'no-category' }
  | { cause: 'too-many-categories'; max: number; count: number }
  | { cause: 'unknown-category'; name: string }
  | { cause: 'bad-category-name'; name: string; rule: string }
  | { cause: 'unknown-category-id'; ids: number[] }
  | { cause: 'not-a-point'; geometry: string }
  | { cause: 'no-properties' }
  /** Records the file's reader could not take (shared/import-limits.ts): bytes that are not UTF-8, a feature too large or too deep. */
  | { cause: 'not-utf8' }
  | { cause: 'too-large'; limit: number }
  | { cause: 'too-deep'; limit: number };

/** Where a sentence is shown: under a form's field, or in an import's report about a row or a feature. */
export type RefusalContext = 'form' | 'row' | 'feature';

/** How the POI form labels each field (renderer/src/pois/PoiForm.tsx): from the field table, and the categories. */
export const fieldLabel = (field: string): string => (field === 'categories' ? 'Categories' : (POI_FIELDS.find((f) => f.wire === field)?.label ?? field));

const lower = (field: string): string => fieldLabel(field).toLowerCase();
const quoted = (text: string): string => `“${text}”`;
const ids = (list: readonly number[]): string => `${list.length === 1 ? 'id' : 'ids'} ${list.join(', ')}`;
const NO_CATEGORY_HELP = (unit: string): string => `choose a default category for ${unit}s that name none`;

/** One refusal as one sentence, without a full stop (a report puts it after the row's line). */
export function sayRefusal(refusal: Refusal, context: RefusalContext): string {
  const unit = context === 'feature' ? 'feature' : 'row';
  switch (refusal.cause) {
    case 'missing':
      return context === 'form' ? `Enter a ${lower(refusal.field)}` : `${fieldLabel(refusal.field)} is missing: every POI needs a ${lower(refusal.field)}`;
    case 'not-a-number':
      return `${fieldLabel(refusal.field)} must be a decimal number (such as 40.25), not ${quoted(refusal.value)}`;
    case 'out-of-range':
      return `${fieldLabel(refusal.field)} ${refusal.rule}, not ${refusal.value}`;
    case 'too-long':
      return `${fieldLabel(refusal.field)} must be at most ${refusal.max} characters, not ${refusal.length}: shorten it`;
    case 'not-unicode':
      return `${fieldLabel(refusal.field)} is not valid Unicode text: save the file as UTF-8`;
    case 'rule':
      return `${fieldLabel(refusal.field)} ${refusal.rule}`;
    case 'no-category':
      return context === 'form' ? 'Choose at least one category' : `The ${unit} names no category: give it one, or ${NO_CATEGORY_HELP(unit)}`;
    case 'too-many-categories':
      return `A POI can have at most ${refusal.max} categories, and this ${unit} names ${refusal.count}: keep ${refusal.max} or fewer`;
    case 'unknown-category':
      return `The category ${quoted(refusal.name)} does not exist: create it, or import with Create missing categories`;
    case 'bad-category-name':
      return `The category name ${quoted(refusal.name)} ${refusal.rule}: correct it in the file`;
    case 'unknown-category-id':
      return `This client has no category with ${ids(refusal.ids)}: name the category instead, or use an id it has`;
    case 'not-a-point':
      return `Only Point geometries can be imported: this feature is a ${refusal.geometry}`;
    case 'no-properties':
      return 'The feature has no properties: give it at least a name';
    case 'not-utf8':
      return `The ${unit} is not valid UTF-8 text: save the file as UTF-8`;
    case 'too-large':
      return `The feature holds more than ${refusal.limit.toLocaleString('en-US')} characters of JSON (MAX_FEATURE_BYTES): split it or shorten its properties`;
    case 'too-deep':
      return `The feature is nested more than ${refusal.limit} levels deep (MAX_JSON_DEPTH): flatten its properties`;
  }
}

/** What makes two refusals the same cause, to be told once with their count. */
export function refusalKey(refusal: Refusal): string {
  switch (refusal.cause) {
    case 'not-a-number':
    case 'out-of-range':
    case 'too-long':
    case 'missing':
    case 'not-unicode':
      return `${refusal.cause}:${refusal.field}`;
    case 'rule':
      return `rule:${refusal.field}:${refusal.rule}`;
    case 'unknown-category':
      return `unknown-category:${foldText(refusal.name)}`;
    case 'bad-category-name':
      return `bad-category-name:${refusal.rule}`;
    case 'unknown-category-id':
      return `unknown-category-id:${refusal.ids.join(',')}`;
    case 'not-a-point':
      return `not-a-point:${refusal.geometry}`;
    case 'too-many-categories':
      return `too-many:${refusal.max}`;
    case 'no-category':
    case 'no-properties':
    case 'not-utf8':
    case 'too-large':
    case 'too-deep':
      return refusal.cause;
  }
}

/** `count` refusals of one cause as one sentence: "35 rows name the category “Food truck”, which does not exist: …". */
export function sayRefusalGroup(refusal: Refusal, count: number, unit: 'row' | 'feature'): string {
  if (count === 1) return sayRefusal(refusal, unit);
  const n = `${count} ${unit}s`;
  switch (refusal.cause) {
    case 'missing':
      return `${n} have no ${lower(refusal.field)}: every POI needs one`;
    case 'not-a-number':
      return `${n} have a ${fieldLabel(refusal.field)} that is not a decimal number (such as 40.25)`;
    case 'out-of-range':
      return `${n} have a ${fieldLabel(refusal.field)} out of range: it ${refusal.rule}`;
    case 'too-long':
      return `${n} have a ${fieldLabel(refusal.field)} over ${refusal.max} characters: shorten them`;
    case 'not-unicode':
      return `${n} have a ${fieldLabel(refusal.field)} that is not valid Unicode text: save the file as UTF-8`;
    case 'rule':
      return `${n}: ${fieldLabel(refusal.field)} ${refusal.rule}`;
    case 'no-category':
      return `${n} name no category: give each one, or ${NO_CATEGORY_HELP(unit)}`;
    case 'too-many-categories':
      return `${n} name more than ${refusal.max} categories: keep ${refusal.max} or fewer`;
    case 'unknown-category':
      return `${n} name the category ${quoted(refusal.name)}, which does not exist: create it, or import with Create missing categories`;
    case 'bad-category-name':
      return `${n} name a category that cannot be created: its name ${refusal.rule}`;
    case 'unknown-category-id':
      return `${n} name the category ${ids(refusal.ids)}, which this client does not have: name the category instead, or use an id it has`;
    case 'not-a-point':
      return `${n} are a ${refusal.geometry}, not a Point: only Point geometries can be imported`;
    case 'no-properties':
      return `${n} have no properties: give each at least a name`;
    case 'not-utf8':
      return `${n} are not valid UTF-8 text: save the file as UTF-8`;
    case 'too-large':
      return `${n} hold more than ${refusal.limit.toLocaleString('en-US')} characters of JSON (MAX_FEATURE_BYTES): split them or shorten their properties`;
    case 'too-deep':
      return `${n} are nested more than ${refusal.limit} levels deep (MAX_JSON_DEPTH): flatten their properties`;
  }
}

/** A row's value as a refusal quotes it: a 1 MB cell is not echoed whole. */
export const shownValue = (value: unknown): string => {
  const text = typeof value === 'string' ? value : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

/**
 * The refusals of a row checked with the POI rules (shared/schemas/pois.ts): each issue by its
 * field and cause, read from the issue's code and the value checked; a value is quoted as the
 * file wrote it (`written`), when given.
 */
export function refusalsOf(issues: readonly z.core.$ZodIssue[], checked: Readonly<Record<string, unknown>>, written: Readonly<Record<string, unknown>> = {}): Refusal[] {
  const seen = new Set<string>();
  const refusals: Refusal[] = [];
  for (const issue of issues) {
    const field = typeof issue.path[0] === 'string' ? issue.path[0] : 'row';
    const refusal = refusalOfIssue(issue, field, checked[field], written[field] ?? checked[field]);
    const key = refusalKey(refusal);
    if (!seen.has(key)) refusals.push(refusal);
    seen.add(key);
  }
  return refusals;
}

function refusalOfIssue(issue: z.core.$ZodIssue, field: string, value: unknown, written: unknown): Refusal {
  if (field === 'categories') return issue.code === 'too_big' ? { cause: 'too-many-categories', max: Number(issue.maximum), count: Array.isArray(value) ? value.length : 0 } : { cause: 'no-category' };
  if (value === undefined || value === null || (issue.code === 'custom' && issue.message === 'must not be empty')) return { cause: 'missing', field };
  if (issue.code === 'invalid_type' && issue.expected === 'number') return { cause: 'not-a-number', field, value: shownValue(written) };
  if ((issue.code === 'too_small' || issue.code === 'too_big') && issue.origin === 'number') return { cause: 'out-of-range', field, rule: issue.message, value: shownValue(written) };
  if (typeof value === 'string' && !value.isWellFormed()) return { cause: 'not-unicode', field };
  const max = (TEXT_LIMITS as Readonly<Record<string, number>>)[field];
  if (typeof value === 'string' && max !== undefined && [...value].length > max) return { cause: 'too-long', field, max, length: [...value].length };
  return { cause: 'rule', field, rule: issue.message };
}

/** How an import's report begins: what went in, or, for a check, what would have. */
export function importSummary(report: ImportReport): string {
  const would = (verb: string): string => (report.dryRun ? `would be ${verb}` : verb);
  const parts = [`${report.added} ${would('added')}, ${report.updated} ${would('updated')}, ${report.refusedCount} ${would('refused')}, of ${report.rows} rows`];
  if (report.identicalCount > 0) parts.push(`, ${report.identicalCount} ${would('skipped')} as identical to a POI already there`);
  if (report.createdCategories.length > 0) parts.push(`; categories ${report.dryRun ? 'to create' : 'created'}: ${report.createdCategories.join(', ')}`);
  return `${report.dryRun ? 'Checked, nothing written: ' : ''}${parts.join('')}.`;
}

/** What a report calls one record of a file: "feature 3" is a feature, "line 12" a row. */
export const unitOf = (where: string): 'row' | 'feature' => (where.startsWith('feature') ? 'feature' : 'row');

/** The report's own entry saying how many more rows were refused than it lists (poi-import.ts). */
export const MORE_REFUSED = 'and more';

/** The refused rows as a CSV's rows (a header, then one per row: where, its name, why). */
export function reportCsvRows(report: ImportReport): string[][] {
  return [['Row', 'Name', 'Reason'], ...report.refused.filter((r) => r.where !== MORE_REFUSED).map((r) => [r.where, r.name ?? '', r.reason])];
}
