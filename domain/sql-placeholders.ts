/**
 * Named placeholders in a spec query's SQL (`:region`, `:period.from`): found by a small lexer that skips
 * string literals, quoted names, dollar quotes, comments and `::` casts, and rewritten to positional,
 * typed parameters (`($1::date)`). Values never enter the text: they travel beside it, bound by the database.
 */

export interface Placeholder {
  /** The parameter's id. */
  name: string;
  /** `from` or `to` in `:period.from`; absent for `:region`. */
  part?: string;
  start: number;
  end: number;
}

const WORD = /[A-Za-z0-9_$]/;
const NAME_AT = /:([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?/y;
const DOLLAR_TAG_AT = /\$([A-Za-z_][A-Za-z0-9_]*)?\$/y;

/** Every placeholder in source order. */
export function scanPlaceholders(sql: string): Placeholder[] {
  const found: Placeholder[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === '-' && next === '-') i = lineEnd(sql, i);
    else if (c === '/' && next === '*') i = commentEnd(sql, i);
    else if (c === "'") i = quotedEnd(sql, i, "'", isEscapeString(sql, i));
    else if (c === '"') i = quotedEnd(sql, i, '"', false);
    else if (c === '$' && !WORD.test(sql[i - 1] ?? '')) i = dollarEnd(sql, i);
    else if (c === ':' && next === ':') i += 2;
    else if (c === ':' && !WORD.test(sql[i - 1] ?? '')) {
      NAME_AT.lastIndex = i;
      const match = NAME_AT.exec(sql);
      if (match) {
        found.push({ name: match[1]!, ...(match[2] === undefined ? {} : { part: match[2] }), start: i, end: i + match[0].length });
        i += match[0].length;
      } else i += 1;
    } else if (WORD.test(c)) {
      while (i < sql.length && WORD.test(sql[i]!)) i++;
    } else i += 1;
  }
  return found;
}

/** The text with each placeholder replaced by what `replace` gives for it. */
export function rewritePlaceholders(sql: string, replace: (placeholder: Placeholder) => string): string {
  let out = '';
  let at = 0;
  for (const placeholder of scanPlaceholders(sql)) {
    out += sql.slice(at, placeholder.start) + replace(placeholder);
    at = placeholder.end;
  }
  return out + sql.slice(at);
}

function lineEnd(sql: string, i: number): number {
  const end = sql.indexOf('\n', i);
  return end < 0 ? sql.length : end + 1;
}

/** PostgreSQL's block comments nest. */
function commentEnd(sql: string, i: number): number {
  let depth = 0;
  while (i < sql.length) {
    if (sql.startsWith('/*', i)) {
      depth++;
      i += 2;
    } else if (sql.startsWith('*/', i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return sql.length;
}

/** An `E'...'` string, where a backslash escapes the next character. */
function isEscapeString(sql: string, i: number): boolean {
  return (sql[i - 1] === 'E' || sql[i - 1] === 'e') && !WORD.test(sql[i - 2] ?? '');
}

/** Past the closing quote; a doubled quote is part of the text. */
function quotedEnd(sql: string, i: number, quote: string, backslashes: boolean): number {
  i++;
  while (i < sql.length) {
    const c = sql[i]!;
    if (backslashes && c === '\\') i += 2;
    else if (c === quote && sql[i + 1] === quote) i += 2;
    else if (c === quote) return i + 1;
    else i++;
  }
  return sql.length;
}

function dollarEnd(sql: string, i: number): number {
  DOLLAR_TAG_AT.lastIndex = i;
  const match = DOLLAR_TAG_AT.exec(sql);
  if (!match) return i + 1;
  const close = sql.indexOf(match[0], i + match[0].length);
  return close < 0 ? sql.length : close + match[0].length;
}
