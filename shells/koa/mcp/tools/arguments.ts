import { IsOptional, registerDecorator, validateSync, type ValidationArguments, type ValidationError } from 'class-validator';
import { JSONSchema, targetConstructorToSchema } from 'class-validator-jsonschema';
import { Utf8Body } from '../../../../domain/utf8-body.js';

/**
 * The decorators a tool's input class (a class-validator DTO) is declared with. Each one registers one
 * class-validator constraint that carries its own JSON Schema fragment, so the same declaration gives the
 * argument's TypeScript type (the property), its check (`readArguments`) and its `inputSchema` entry
 * (`inputSchemaOf`, through class-validator-jsonschema). Refusals read like the domain's own:
 * `<argument> must be ...`, `<argument> is required`.
 */

export type JsonSchema = Record<string, unknown>;

/** A tool's input class: public fields, decorated with the argument decorators below. */
export type ToolInputClass<I extends object = object> = new () => I;

/** The one constraint name every argument decorator registers under; its first constraint is the schema fragment. */
const ARGUMENT = 'toolArgument';
/** Marks an argument that is read but not offered in inputSchema. */
const UNLISTED = 'x-unlisted';

interface Shape {
  /** The argument's JSON Schema, without its description. */
  schema: JsonSchema;
  /** Whether a non-null value fits. */
  fits(value: unknown): boolean;
  /** The refusal of a value that does not fit, worded with the argument's name. */
  refusal(name: string, value: unknown): string;
}

interface ArgumentOptions {
  description?: string;
  /** Absent (or null) is accepted. Default: the argument is required. */
  optional?: boolean;
  /** null is a value of its own (`name: null` unnames a version); declared as `type: [..., "null"]`. */
  nullable?: boolean;
  /** Schema-only keywords whose refusal the domain words itself (a slug's length). */
  documented?: JsonSchema;
}

function argument(shape: Shape, options: ArgumentOptions = {}): PropertyDecorator {
  const schema: JsonSchema = { ...shape.schema, ...options.documented };
  if (options.nullable) {
    schema.type = [schema.type, 'null'];
    if (Array.isArray(schema.enum)) schema.enum = [...schema.enum, null];
  }
  return (target, propertyName) => {
    if (options.optional) IsOptional()(target, propertyName);
    registerDecorator({
      name: ARGUMENT,
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [schema],
      validator: {
        validate: (value: unknown) => (value === null && options.nullable) || (value !== undefined && value !== null && shape.fits(value)),
        defaultMessage: (args: ValidationArguments) =>
          args.value === undefined || args.value === null ? `${args.property} is required` : shape.refusal(args.property, args.value),
      },
    });
    if (options.description !== undefined) JSONSchema({ description: options.description })(target, propertyName as string);
  };
}

const isText = (value: unknown) => typeof value === 'string' || value instanceof Utf8Body;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const quoteList = (values: readonly unknown[]) => {
  const shown = values.map((v) => JSON.stringify(v));
  return shown.length <= 1 ? (shown[0] ?? '') : `${shown.slice(0, -1).join(', ')} or ${shown[shown.length - 1]}`;
};

/**
 * A string. A large publish body arrives as its UTF-8 bytes (parse-message.ts): a string all the same.
 * `refusal` replaces `<name> must be a string` where the spec words a wrong value itself, whatever its type.
 */
export const Text = (options: ArgumentOptions & { refusal?: string } = {}) =>
  argument({ schema: { type: 'string' }, fits: isText, refusal: (name) => options.refusal ?? `${name} must be a string` }, options);

export const Flag = (options: ArgumentOptions = {}) =>
  argument({ schema: { type: 'boolean' }, fits: (v) => typeof v === 'boolean', refusal: (name) => `${name} must be a boolean` }, options);

export const IntegerIn = (minimum: number, maximum: number, options: ArgumentOptions = {}) =>
  argument(
    {
      schema: { type: 'integer', minimum, maximum },
      fits: (v) => typeof v === 'number' && Number.isInteger(v) && v >= minimum && v <= maximum,
      refusal: (name) => `${name} must be an integer from ${minimum} to ${maximum}`,
    },
    options,
  );

/** One of the listed strings; any other value, whatever its type, gets the spec's `visibility must be "public" or "private"`. */
export const OneOf = (values: readonly string[], options: ArgumentOptions = {}) =>
  argument(
    { schema: { type: 'string', enum: [...values] }, fits: (v) => values.some((allowed) => allowed === v), refusal: (name) => `${name} must be ${quoteList(values)}` },
    options,
  );

export const Uuid = (options: ArgumentOptions = {}) =>
  argument(
    { schema: { type: 'string', format: 'uuid' }, fits: (v) => typeof v === 'string' && UUID.test(v), refusal: (name) => `${name} must be a valid uuid` },
    options,
  );

/** An array of strings; a wrong element is named by its index, the spec's `tags[<i>] must be a string (got <typeof>)`. */
export const TextList = (options: ArgumentOptions = {}) =>
  argument(
    {
      schema: { type: 'array', items: { type: 'string' } },
      fits: (v) => Array.isArray(v) && v.every(isText),
      refusal(name, value) {
        if (!Array.isArray(value)) return `${name} must be an array of strings`;
        const i = value.findIndex((element) => !isText(element));
        return `${name}[${i}] must be a string (got ${typeof value[i]})`;
      },
    },
    options,
  );

/** An array of objects (a spec's `params`); what each holds is the domain's to judge. */
export const ObjectList = (options: ArgumentOptions = {}) =>
  argument(
    {
      schema: { type: 'array', items: { type: 'object' } },
      fits: (v) => Array.isArray(v) && v.every((e) => typeof e === 'object' && e !== null && !Array.isArray(e)),
      refusal: (name) => `${name} must be an array of objects`,
    },
    options,
  );

/** An object or a string (a spec sent as JSON text); what is inside is the domain's to judge. */
export const ObjectOrText = (options: ArgumentOptions = {}) =>
  argument(
    {
      schema: { type: ['object', 'string'] },
      fits: (v) => isText(v) || (typeof v === 'object' && !Array.isArray(v)),
      refusal: (name) => `${name} must be an object or a string`,
    },
    options,
  );

/** A list or a string (a patch sent as JSON text); what is inside is the domain's to judge. */
export const ListOrText = (options: ArgumentOptions = {}) =>
  argument(
    { schema: { type: ['array', 'string'] }, fits: (v) => isText(v) || Array.isArray(v), refusal: (name) => `${name} must be an array or a string` },
    options,
  );

/**
 * The workspace a call targets, passed on as sent: what a wrong value means depends on the grant's lock
 * (a scope refusal, or the spec's `workspace must be a non-empty slug string`), so domain/scope.ts words
 * every refusal of it and the property stays `unknown`.
 */
export const Workspace = (description?: string) => (target: object, propertyName: string | symbol) => {
  IsOptional()(target, propertyName);
  JSONSchema({ type: 'string', ...(description !== undefined ? { description } : {}) })(target, propertyName as string);
};

/**
 * Read and passed on as sent, but not offered in inputSchema: trigger_refresh's `workspace`, which its use
 * case refuses with its own text instead of `unknown argument`.
 */
export const Unlisted = () => (target: object, propertyName: string | symbol) => {
  IsOptional()(target, propertyName);
  JSONSchema({ [UNLISTED]: true })(target, propertyName as string);
};

/** A tool's input as read from its class: the inputSchema, and the names it reads (listed or not). */
export interface InputDeclaration<I extends object = object> {
  input: ToolInputClass<I>;
  inputSchema: JsonSchema;
  /** Names in declaration order, as `unknown argument` lists them (unlisted ones left out). */
  accepted: readonly string[];
  known: ReadonlySet<string>;
}

/** The class's JSON Schema (class-validator-jsonschema over the class's class-validator metadata), built once per tool. */
export function declareInput<I extends object>(input: ToolInputClass<I>): InputDeclaration<I> {
  const derived = targetConstructorToSchema(input, { additionalConverters: { [ARGUMENT]: (meta) => ({ ...(meta.constraints[0] as JsonSchema) }) } }) as JsonSchema;
  const all = (derived.properties ?? {}) as Record<string, JsonSchema>;
  const properties = Object.fromEntries(Object.entries(all).filter(([, schema]) => !schema[UNLISTED]));
  const required = ((derived.required ?? []) as string[]).filter((name) => Object.hasOwn(properties, name));
  return {
    input,
    inputSchema: { type: 'object', properties, required, additionalProperties: false },
    accepted: Object.keys(properties),
    known: new Set(Object.keys(all)),
  };
}

const VALIDATION = { forbidUnknownValues: false, validationError: { target: false } } as const;

/**
 * The call's arguments as an instance of the tool's input class, or the first refusal. Unknown arguments
 * are always refused (a misspelt argument silently ignored would publish the wrong thing), then missing
 * required ones, then the first wrong value in declaration order. The values are moved, not copied: nothing
 * reads the request's arguments again, so a 5 MiB body is not held by both for the rest of the call.
 */
export function readArguments<I extends object>(declared: InputDeclaration<I>, args: Record<string, unknown>): { input: I } | { problem: string } {
  for (const key of Object.keys(args)) {
    if (!declared.known.has(key)) {
      const accepted = declared.accepted;
      return { problem: `unknown argument "${key}"${accepted.length ? `; accepted: ${accepted.join(', ')}` : '; this takes no arguments'}` };
    }
  }
  const input = new declared.input();
  for (const key of Object.keys(args)) {
    Reflect.set(input, key, args[key]);
    // Cleared, not deleted: `delete` turns the arguments into a dictionary-mode object.
    args[key] = undefined;
  }
  const errors = validateSync(input, VALIDATION);
  if (errors.length === 0) return { input };
  const missing = errors.find((e) => e.value === undefined || e.value === null);
  return { problem: messageOf(missing ?? errors[0]!) };
}

const messageOf = (error: ValidationError) => Object.values(error.constraints ?? {})[0] ?? `${error.property} is invalid`;

/**
 * The first text in `args` (at any depth, declared or not) that no store keeps as sent: one holding a NUL
 * character, which PostgreSQL's text refuses, or a lone UTF-16 surrogate, which UTF-8 cannot carry. Checked
 * for every tool in one place so that a new tool's text arguments are covered without a line of its own.
 */
export function checkText(args: object): string | null {
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
