import type Koa from 'koa';

export class BodyTooLarge extends Error {}

/** The raw request body as text, refusing more than `limit` bytes. */
export async function readBody(ctx: Koa.Context, limit: number): Promise<string> {
  const declared = Number(ctx.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

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
  return parseForm(await readBody(ctx, FORM_LIMIT_BYTES));
}
