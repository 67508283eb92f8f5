import { Utf8Body } from '../../../domain/utf8-body.js';

/**
 * Structural checks of tool arguments against a tool's inputSchema, run before the tool so that no use
 * case ever sees an unknown argument or a value of the wrong JSON type.
 *
 * Deliberately partial JSON Schema: it checks names, `required`, `type`, `enum`, integer/number bounds,
 * `format: "uuid"`, array `items`, nested `properties` and `anyOf`/`oneOf`. String shape rules (length,
 * pattern) are left to the domain, which owns the spec's exact texts (`slug exceeds 64-char limit ...`).
 * Messages follow the spec's `<argument> must be ...` style so they read like the domain's own.
 */

export type JsonSchema = Record<string, unknown>;

/**
 * The argument the grant-lock rules interpret themselves: what a bad `workspace` means depends on the lock
 * (a scope refusal, or `workspace must be a non-empty slug string`), so wherever a tool declares it, it is
 * one of the tool's use-case-checked arguments (see `useCaseCheckedArguments`).
 */
export const SCOPE_ARGUMENT = 'workspace';

/**
 * The one set of top-level arguments this module leaves to the use case, which words every refusal of
 * them itself: the tool's own list (ToolDefinition `useCaseChecked`) plus `workspace` wherever the
 * schema declares it. A declared one is not type-checked here; an undeclared one is not refused as
 * unknown (the use case refuses it with its own text).
 */
export function useCaseCheckedArguments(inputSchema: JsonSchema, declared: readonly string[] = []): ReadonlySet<string> {
  const properties = (inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  return new Set([...declared, ...(Object.hasOwn(properties, SCOPE_ARGUMENT) ? [SCOPE_ARGUMENT] : [])]);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const article = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

function typesOf(schema: JsonSchema): string[] {
  const t = schema.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  return [];
}

function matchesType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      // A large publish body arrives as its UTF-8 bytes (parse-message.ts): a string all the same.
      return typeof value === 'string' || value instanceof Utf8Body;
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'null':
      return value === null;
    default:
      return true;
  }
}

function describeType(types: string[], schema: JsonSchema): string {
  const shown = types.filter((t) => t !== 'null');
  if (shown.length === 1 && shown[0] === 'array') {
    const items = (schema.items ?? {}) as JsonSchema;
    const itemTypes = typesOf(items).filter((t) => t !== 'null');
    return itemTypes.length === 1 ? `an array of ${itemTypes[0]}s` : 'an array';
  }
  if (shown.length === 1 && (shown[0] === 'integer' || shown[0] === 'number')) return `${article(shown[0])}${bounds(schema)}`;
  const words = shown.map(article);
  return words.length <= 1 ? (words[0] ?? 'a value') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

function bounds(schema: JsonSchema): string {
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  if (max !== undefined) return ` of at most ${max}`;
  return '';
}

function quoteList(values: unknown[]): string {
  const shown = values.filter((v) => v !== null).map((v) => JSON.stringify(v));
  return shown.length <= 1 ? (shown[0] ?? '') : `${shown.slice(0, -1).join(', ')} or ${shown[shown.length - 1]}`;
}

/** The first problem with `value` at `name`, or null when it fits `schema`. */
export function checkValue(name: string, value: unknown, schema: JsonSchema): string | null {
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(alternatives)) {
    const problems = alternatives.map((alt) => checkValue(name, value, alt));
    if (problems.some((p) => p === null)) return null;
    return problems[0] ?? `${name} has an unsupported shape`;
  }
  if (Array.isArray(schema.enum)) {
    // One message whatever the wrong value's type: the spec's `visibility must be "public" or "private"`.
    return schema.enum.some((allowed) => allowed === value) ? null : `${name} must be ${quoteList(schema.enum)}`;
  }
  if (schema.format === 'uuid' && value !== null) {
    return typeof value === 'string' && UUID.test(value) ? null : `${name} must be a valid uuid`;
  }
  const types = typesOf(schema);
  if (types.length > 0 && !types.some((t) => matchesType(value, t))) {
    return `${name} must be ${describeType(types, schema)}`;
  }
  if (typeof value === 'number') {
    const min = typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
    const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
    if (value < min || value > max) return `${name} must be ${describeType(types.length ? types : ['number'], schema)}`;
  }
  if (Array.isArray(value) && schema.items && typeof schema.items === 'object') {
    const items = schema.items as JsonSchema;
    const itemTypes = typesOf(items);
    for (let i = 0; i < value.length; i++) {
      const element = value[i];
      if (itemTypes.length > 0 && !itemTypes.some((t) => matchesType(element, t)) && !items.enum && !items.anyOf && !items.oneOf) {
        // The spec's form: `tags[<i>] must be a string (got <typeof>)`.
        return `${name}[${i}] must be ${describeType(itemTypes, items)} (got ${typeof element})`;
      }
      const problem = checkValue(`${name}[${i}]`, element, items);
      if (problem) return problem;
    }
  }
  if (matchesType(value, 'object') && schema.properties && typeof schema.properties === 'object') {
    return checkObject(name, value as Record<string, unknown>, schema, schema.additionalProperties === false);
  }
  return null;
}

const allowsNull = (schema: JsonSchema) => typesOf(schema).includes('null') || (Array.isArray(schema.enum) && schema.enum.includes(null));

const NONE: ReadonlySet<string> = new Set();

function checkObject(
  prefix: string,
  value: Record<string, unknown>,
  schema: JsonSchema,
  closed: boolean,
  useCaseChecked: ReadonlySet<string> = NONE,
): string | null {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const label = (key: string) => (prefix ? `${prefix}.${key}` : key);
  if (closed) {
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(properties, key) && !useCaseChecked.has(key)) {
        const accepted = Object.keys(properties);
        return `unknown argument "${label(key)}"${accepted.length ? `; accepted: ${accepted.join(', ')}` : '; this takes no arguments'}`;
      }
    }
  }
  for (const key of required) {
    const given = value[key];
    // A required argument may be null only where null means something (e.g. `name: null` unnames a version).
    if (given === undefined || (given === null && !allowsNull(properties[key] ?? {}))) return `${label(key)} is required`;
  }
  for (const [key, propertySchema] of Object.entries(properties)) {
    const given = value[key];
    // Null means "not given" for an optional argument (the spec's metadata semantics: omitted or null keeps).
    if (given === undefined || given === null) continue;
    if (!prefix && useCaseChecked.has(key)) continue;
    const problem = checkValue(label(key), given, propertySchema);
    if (problem) return problem;
  }
  return null;
}

/**
 * Checks a tool's whole argument object. Unknown top-level arguments are always refused, whatever the
 * schema's additionalProperties says: a misspelt argument silently ignored would publish the wrong thing.
 */
export function checkArguments(args: Record<string, unknown>, inputSchema: JsonSchema, useCaseChecked: ReadonlySet<string> = NONE): string | null {
  return checkObject('', args, inputSchema, true, useCaseChecked);
}

/**
 * The first text in `args` (at any depth, declared or not) that no store keeps as sent: one holding a NUL
 * character, which PostgreSQL's text refuses, or a lone UTF-16 surrogate, which UTF-8 cannot carry. Checked
 * for every tool in one place so that a new tool's text arguments are covered without a line of its own.
 */
export function checkText(args: Record<string, unknown>): string | null {
  for (const [key, value] of Object.entries(args)) {
    const problem = textProblem(key, value, 0);
    if (problem) return problem;
  }
  return null;
}

/** Deeper than any tool's schema nests: past it, the structural checks have already refused the shape. */
const MAX_TEXT_DEPTH = 8;

function textProblem(name: string, value: unknown, depth: number): string | null {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return `${name} must not contain a NUL character (\\u0000)`;
    if (!(value as string & { isWellFormed(): boolean }).isWellFormed()) return `${name} must be valid Unicode text (it contains a lone surrogate)`;
    return null;
  }
  if (value instanceof Utf8Body) return value.bytes.includes(0) ? `${name} must not contain a NUL character (\\u0000)` : null;
  if (typeof value !== 'object' || value === null || depth >= MAX_TEXT_DEPTH) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = textProblem(`${name}[${i}]`, value[i], depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const problem = textProblem(`${name} key`, key, depth + 1) ?? textProblem(`${name}.${key}`, inner, depth + 1);
    if (problem) return problem;
  }
  return null;
}
