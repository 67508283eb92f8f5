import type Koa from 'koa';
import { DomainError } from '../../../domain/errors.js';
import { readBody } from '../../http/request-body.js';

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

/**
 * The web app's form fields. A NUL character is refused here, for every form at once: PostgreSQL's text
 * cannot hold it, and its refusal must never become the page's answer (the app surface shows this one).
 */
export async function readForm(ctx: Koa.Context): Promise<FormFields> {
  const fields = parseForm(await readBody(ctx.req, FORM_LIMIT_BYTES));
  for (const [key, value] of Object.entries(fields)) {
    if (key.includes('\u0000') || (Array.isArray(value) ? value.some(hasNul) : hasNul(value))) {
      throw new DomainError('invalid_argument', `${key.replaceAll('\u0000', '')} must not contain a NUL character (\\u0000)`);
    }
  }
  return fields;
}

const hasNul = (text: string) => text.includes('\u0000');
