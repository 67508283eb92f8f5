import { DomainError, invalid, isDomainError, typeName } from './errors.js';
import { parseDashboardSpec, type DashboardSpec } from './dashboard-spec.js';
import { parseTimezone } from './spec-display.js';
import { checkId, given, got, isPlainObject, optionalString, refuseUnknownKeys, requiredText } from './spec-reading.js';

/**
 * A patch: ordered operations on the current spec, keyed by id, so an AI client changes one panel of a large
 * dashboard without resending it. The operations apply to a copy as one unit, the result is validated exactly
 * like a full spec, and any refusal names the operation (`patch[<i>]`) and its field.
 */

export const PATCH_OPS = [
  'add_panel', 'replace_panel', 'remove_panel', 'move_panel', 'set_query', 'remove_query',
  'set_param', 'remove_param', 'set_alert', 'remove_alert', 'set_title', 'set_description', 'set_data', 'set_timezone',
] as const;
export type PatchOpName = (typeof PATCH_OPS)[number];
export const MAX_PATCH_OPS = 100;

/** Each operation's keys besides `op`. */
const OP_KEYS: Record<PatchOpName, string[]> = {
  add_panel: ['panel', 'after', 'before'],
  replace_panel: ['id', 'panel'],
  remove_panel: ['id'],
  move_panel: ['id', 'after', 'before'],
  set_query: ['id', 'sql'],
  remove_query: ['id'],
  set_param: ['param'],
  remove_param: ['id'],
  set_alert: ['alert'],
  remove_alert: ['id'],
  set_title: ['title'],
  set_description: ['description'],
  set_data: ['id', 'rows'],
  set_timezone: ['timezone'],
};

/** The spec's lists of `{ id, ... }` entries a patch edits by id, with the word an operation's field uses. */
const LISTS = { panels: 'panel', params: 'param', alerts: 'alert' } as const;
type ListKey = keyof typeof LISTS;
type Entry = Record<string, unknown> & { id: string };
type Op = Record<string, unknown> & { op: PatchOpName };

/** The validated result, and how to name the operation behind a refusal of it found later (its SQL's check). */
export interface PatchedSpec {
  spec: DashboardSpec;
  /** Query ids whose SQL the patch set or removed: their columns from the last run no longer hold. */
  changedQueries: string[];
  blame(message: string): string;
}

/** Reads a patch: a non-empty list (or a JSON string of one) of known operations with only their own keys. */
export function parsePatch(input: unknown): Op[] {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (err) {
      throw invalid(`patch is not valid JSON: ${(err as Error).message}`);
    }
  }
  if (!Array.isArray(value) || value.length === 0) throw invalid(`patch must be a non-empty array of operations (got ${typeName(value)})`);
  if (value.length > MAX_PATCH_OPS) throw invalid(`patch has ${value.length} operations, over the limit of ${MAX_PATCH_OPS}`);
  return value.map((op, i) => {
    const where = `patch[${i}]`;
    if (!isPlainObject(op)) throw invalid(`${where} must be an object with "op" (got ${typeName(op)})`);
    if (!(PATCH_OPS as readonly unknown[]).includes(op.op)) {
      throw invalid(`${where}.op must be one of ${PATCH_OPS.join(', ')} (got ${given(op.op) ? got(op.op) : 'nothing'})`);
    }
    refuseUnknownKeys(op, where, ['op', ...OP_KEYS[op.op as PatchOpName]]);
    return op as Op;
  });
}

/**
 * Applies `patch` to `current` (a stored spec) and validates the result as a publish would; `validate` is the
 * spec's own parser, replaceable only to look at what the operations made.
 */
export function applySpecPatch(current: unknown, patch: unknown, validate: (raw: object) => DashboardSpec = parseDashboardSpec): PatchedSpec {
  const ops = parsePatch(patch);
  const draft = new Draft(current);
  ops.forEach((op, i) => draft.apply(op, i));
  const blame = (message: string) => draft.blame(message, ops.length - 1);
  try {
    return { spec: validate(draft.spec), changedQueries: [...draft.changedQueries], blame };
  } catch (err) {
    if (isDomainError(err)) throw new DomainError(err.code, blame(err.message));
    throw err;
  }
}

/** The spec being patched: copies of what operations change, and which operation last wrote each part. */
class Draft {
  readonly spec: Record<string, unknown>;
  readonly changedQueries = new Set<string>();
  /** "panels:<id>", "queries:<id>", "title", "panels" (the list's order) … → index of the last operation. */
  private readonly writers = new Map<string, number>();

  constructor(current: unknown) {
    if (!isPlainObject(current)) throw invalid('this dashboard has no spec to patch');
    this.spec = { ...current };
  }

  apply(op: Op, i: number): void {
    const where = `patch[${i}]`;
    switch (op.op) {
      case 'add_panel': return this.addPanel(op, where, i);
      case 'replace_panel': return this.setEntry('panels', op.panel, where, i, this.existing('panels', op.id, where));
      case 'remove_panel': return this.removeEntry('panels', op.id, where, i);
      case 'move_panel': return this.movePanel(op, where, i);
      case 'set_param': return this.setEntry('params', op.param, where, i);
      case 'remove_param': return this.removeEntry('params', op.id, where, i);
      case 'set_alert': return this.setEntry('alerts', op.alert, where, i);
      case 'remove_alert': return this.removeEntry('alerts', op.id, where, i);
      case 'set_query': return this.setQuery(op, where, i);
      case 'remove_query': return this.removeDataset('queries', op.id, where, i);
      case 'set_data': return op.rows === null ? this.removeDataset('data', op.id, where, i) : this.setData(op, where, i);
      case 'set_title':
        this.spec.title = requiredText(op.title, `${where}.title`);
        return void this.writers.set('title', i);
      case 'set_description':
        if (given(op.description)) this.spec.description = optionalString(op.description, `${where}.description`);
        else delete this.spec.description;
        return void this.writers.set('description', i);
      case 'set_timezone':
        // Null (or no value) goes back to the default, UTC, as a spec without `timezone` shows.
        if (given(op.timezone)) this.spec.timezone = parseTimezone(op.timezone, `${where}.timezone`);
        else delete this.spec.timezone;
        return void this.writers.set('timezone', i);
    }
  }

  /** The list as it stands, for reading. */
  private entries(key: ListKey): Entry[] {
    const value = this.spec[key];
    return Array.isArray(value) ? (value as Entry[]) : [];
  }

  /** The list, copied for changing: the current spec's own list is never touched. */
  private list(key: ListKey): Entry[] {
    const entries = [...this.entries(key)];
    this.spec[key] = entries;
    return entries;
  }

  private indexOf(key: ListKey, id: string): number {
    return this.entries(key).findIndex((entry) => isPlainObject(entry) && entry.id === id);
  }

  /** The position of the entry `id` names, refusing an id that names none. */
  private existing(key: ListKey, id: unknown, where: string, field = 'id'): number {
    const name = idOf(id, `${where}.${field}`);
    const at = this.indexOf(key, name);
    if (at < 0) throw invalid(`${where}.${field} ${JSON.stringify(name)} names no ${LISTS[key]}`);
    return at;
  }

  /** Puts an entry at `at` (replacing what is there), or adds it at the end (or `insertAt`) when `at` is undefined. */
  private setEntry(key: ListKey, value: unknown, where: string, i: number, at?: number, insertAt?: number): void {
    const field = `${where}.${LISTS[key]}`;
    if (!isPlainObject(value)) throw invalid(`${field} must be an object (got ${typeName(value)})`);
    const list = this.list(key);
    const entry = { ...value } as Entry;
    if (at !== undefined && !given(entry.id)) entry.id = list[at]!.id;
    entry.id = idOf(entry.id, `${field}.id`);
    const same = this.indexOf(key, entry.id);
    const replacing = at ?? (key === 'panels' ? undefined : same >= 0 ? same : undefined);
    if (same >= 0 && same !== replacing) {
      throw invalid(`${field}.id ${JSON.stringify(entry.id)} is already used by another ${LISTS[key]}${key === 'panels' ? '; use replace_panel to change it' : ''}`);
    }
    if (replacing !== undefined) list[replacing] = entry;
    else list.splice(insertAt ?? list.length, 0, entry);
    this.writers.set(`${key}:${entry.id}`, i).set(key, i);
  }

  private removeEntry(key: ListKey, id: unknown, where: string, i: number): void {
    const at = this.existing(key, id, where);
    this.list(key).splice(at, 1);
    this.writers.set(key, i);
  }

  private addPanel(op: Op, where: string, i: number): void {
    this.setEntry('panels', op.panel, where, i, undefined, this.position(op, where, null));
  }

  private movePanel(op: Op, where: string, i: number): void {
    const from = this.existing('panels', op.id, where);
    if (!given(op.after) && !given(op.before)) throw invalid(`${where} needs "after" or "before": the id of the panel to move it next to`);
    const list = this.list('panels');
    const [panel] = list.splice(from, 1);
    list.splice(this.position(op, where, panel!.id)!, 0, panel!);
    this.writers.set('panels', i);
  }

  /** Where `after` or `before` puts a panel: undefined (the end) when neither is given. */
  private position(op: Op, where: string, moving: string | null): number | undefined {
    if (given(op.after) && given(op.before)) throw invalid(`${where} takes "after" or "before", not both`);
    const field = given(op.after) ? 'after' : given(op.before) ? 'before' : null;
    if (field === null) return undefined;
    if (op[field] === moving) throw invalid(`${where}.${field} names the panel being moved`);
    return this.existing('panels', op[field], where, field) + (field === 'after' ? 1 : 0);
  }

  private setQuery(op: Op, where: string, i: number): void {
    const id = idOf(op.id, `${where}.id`);
    if (this.hasDataset('data', id)) throw invalid(`${where}.id ${JSON.stringify(id)} names inline data (spec.data); remove it first with set_data and "rows": null`);
    const sql = requiredText(op.sql, `${where}.sql`);
    this.spec.queries = { ...(this.spec.queries as object | undefined), [id]: { sql } };
    this.changedQueries.add(id);
    this.writers.set(`queries:${id}`, i).set('queries', i);
  }

  private setData(op: Op, where: string, i: number): void {
    const id = idOf(op.id, `${where}.id`);
    if (this.hasDataset('queries', id)) throw invalid(`${where}.id ${JSON.stringify(id)} names a query (spec.queries); remove it first with remove_query`);
    if (!Array.isArray(op.rows)) throw invalid(`${where}.rows must be an array of row objects, or null to remove the data (got ${typeName(op.rows)})`);
    this.spec.data = { ...(this.spec.data as object | undefined), [id]: op.rows };
    this.writers.set(`data:${id}`, i).set('data', i);
  }

  /** Removes a query or an inline data set that no panel still reads. */
  private removeDataset(key: 'queries' | 'data', id: unknown, where: string, i: number): void {
    const name = idOf(id, `${where}.id`);
    if (!this.hasDataset(key, name)) throw invalid(`${where}.id ${JSON.stringify(name)} names no ${key === 'queries' ? 'query' : 'inline data'}`);
    const user = this.entries('panels').find((panel) => panel.query === name);
    if (user) throw invalid(`${where}.id ${JSON.stringify(name)} is still used by panel ${JSON.stringify(user.id)}; remove or change that panel first`);
    const rest = { ...(this.spec[key] as Record<string, unknown>) };
    delete rest[name];
    // An empty `queries` is refused by the spec; none at all is a static dashboard.
    if (Object.keys(rest).length === 0) delete this.spec[key];
    else this.spec[key] = rest;
    if (key === 'queries') this.changedQueries.add(name);
    this.writers.set(key, i);
  }

  private hasDataset(key: 'queries' | 'data', id: string): boolean {
    const record = this.spec[key];
    return isPlainObject(record) && Object.hasOwn(record, id);
  }

  /** Names the operation behind a refusal of the patched spec, by the spec location the refusal starts with. */
  blame(message: string, last: number): string {
    // A query refused when it is prepared or run on its connection (application/refresh/run-queries.ts).
    const ran = /^query "([A-Za-z0-9_-]+)": /.exec(message);
    if (ran) {
      const writer = this.writers.get(`queries:${ran[1]}`);
      return writer === undefined ? message : `patch[${writer}].sql: ${message}`;
    }
    if (!/^spec\b/.test(message)) return message;
    const entry = /^spec\.(panels|params|alerts)\[(\d+)\]/.exec(message);
    if (entry) {
      const key = entry[1] as ListKey;
      const found = this.entries(key)[Number(entry[2])];
      const writer = this.writers.get(`${key}:${found?.id}`);
      if (writer !== undefined) return `patch[${writer}].${LISTS[key]}${message.slice(entry[0].length)}`;
      // An entry the patch left alone broke through what it reads: the operation that changed that.
      const reads = typeof found?.query === 'string' ? found.query : '';
      const source = this.writers.get(`queries:${reads}`) ?? this.writers.get(`data:${reads}`);
      if (source !== undefined) return `patch[${source}]: ${message}`;
    }
    const keyed = /^spec\.(queries|data)\.([A-Za-z0-9_-]+)/.exec(message);
    const keyedWriter = keyed ? this.writers.get(`${keyed[1]}:${keyed[2]}`) : undefined;
    if (keyed && keyedWriter !== undefined) {
      return `patch[${keyedWriter}]${keyed[1] === 'data' ? '.rows' : ''}${message.slice(keyed[0].length)}`;
    }
    const part = /^spec\.(\w+)/.exec(message) ?? /^spec has unknown key "(\w+)"/.exec(message);
    const writer = part ? this.writers.get(part[1]!) : undefined;
    if (writer !== undefined && /^spec\.(title|description|timezone)\b/.test(message)) return `patch[${writer}].${message.slice(5)}`;
    return `patch[${writer ?? last}]: ${message}`;
  }
}

function idOf(value: unknown, where: string): string {
  if (!given(value)) throw invalid(`${where} is required`);
  if (typeof value !== 'string') throw invalid(`${where} must be a string (got ${typeName(value)})`);
  checkId(value, where);
  return value;
}
