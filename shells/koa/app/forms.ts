import type Koa from 'koa';
import { readBody } from '../request-body.js';

export type FormFields = Record<string, string | string[]>;

/** `application/x-www-form-urlencoded` fields; a repeated name becomes an array (OAuth refuses those). */
export function parseForm(text: string): FormFields {
  const fields: FormFields = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const seen = fields[key];
    fields[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return fields;
}

/** One field as a string (the first, when repeated), or '' when absent. */
export const field = (fields: FormFields, name: string): string => {
  const value = fields[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
};

export const FORM_LIMIT_BYTES = 64 * 1024;

export async function readForm(ctx: Koa.Context): Promise<FormFields> {
  return parseForm(await readBody(ctx.req, FORM_LIMIT_BYTES));
}
