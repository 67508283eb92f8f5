import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { Utf8Body } from '../../../domain/utf8-body.js';
import { bodyText } from '../../http/request-body.js';

/**
 * A JSON-RPC request body, parsed. What comes back is what `JSON.parse` gives for the body's UTF-8 text, with
 * one difference: a `publish_dashboard` call's `body` argument in a request of 64 KiB or more arrives as a `Utf8Body`, its
 * UTF-8 bytes decoded out of the JSON string in place in `raw`, instead of as a string. Invalid JSON throws a
 * SyntaxError, as `JSON.parse` does. `raw` belongs to the caller no more: it may be rewritten, and the body's
 * bytes are a view of it.
 *
 * Why: a 5 MiB publish otherwise exists as the request bytes, their text, the parsed string and the string's
 * UTF-8 bytes, and the parsed string waits in V8's large-object space for a full collection. Decoded in
 * place it is the request bytes only, and the decoding costs less than `JSON.parse` and the encoding did
 * (docs/decisions/0043-large-body-decoding.md).
 */
export function parseMessage(raw: Buffer): unknown {
  // Valid UTF-8 only: its bytes past ASCII then go through the decoding as they are, which is what decoding
  // them to text and encoding the string again gives. Other bytes are left to the text decoder's U+FFFD.
  if (raw.length < LIFT_AT || !isUtf8(raw)) return JSON.parse(bodyText(raw));
  const start = bodyValueStart(raw);
  if (start < 0) return JSON.parse(bodyText(raw));
  // From here `raw` is rewritten; every way out is a parse of what it said or a SyntaxError.
  const { end, value } = decodeInPlace(raw, start);
  const head = raw.toString('utf8', 0, start - 1);
  const tail = raw.toString('utf8', end + 1);
  const message: unknown = JSON.parse(head + SENTINEL_LITERAL + tail);
  const args = publishArguments(message);
  if (args?.body === SENTINEL && !head.includes(NONCE) && !tail.includes(NONCE)) {
    args.body = value;
    return message;
  }
  // The string was some other member's (a batch, another method, a nested `body`): parse it as written.
  // Both forms of the value are exact: the bytes hold no lone surrogate (those come back as text).
  const text = typeof value === 'string' ? value : value.text();
  return JSON.parse(head + JSON.stringify(text) + tail);
}

/**
 * Smaller requests parse as they always did: the saving is in the copies of a large body (strings over 128 KiB
 * live in V8's large-object space), and a 10 KB publish is not worth looking at twice.
 */
export const LIFT_AT = 64 * 1024;

// A value no client can know, so that finding it where the body was proves the body was that member.
const NONCE = randomUUID();
const SENTINEL = `\u0000dashpub-body:${NONCE}`;
const SENTINEL_LITERAL = JSON.stringify(SENTINEL);

function publishArguments(message: unknown): Record<string, unknown> | undefined {
  if (!isObject(message) || message.method !== 'tools/call' || !isObject(message.params)) return undefined;
  const { name, arguments: args } = message.params;
  return name === 'publish_dashboard' && isObject(args) ? args : undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const KEY = Buffer.from('"body"');
const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Where the first string value of a member named `body` starts (just after its opening quote), or -1. In
 * valid JSON the bytes `"body"`, blanks, `:`, blanks and `"` can only be a member's name and the opening of
 * its string value: inside a string a quote is escaped, so the quote after `body` ends a string, and a
 * string followed by a colon is a name. In invalid JSON what this finds does not matter: the parse fails.
 */
function bodyValueStart(raw: Buffer): number {
  for (let at = raw.indexOf(KEY); at >= 0; at = raw.indexOf(KEY, at + 1)) {
    let i = at + KEY.length;
    while (isSpace(raw[i])) i++;
    if (raw[i] !== 0x3a) continue;
    i++;
    while (isSpace(raw[i])) i++;
    if (raw[i] === 0x22) return i + 1;
  }
  return -1;
}

/** A byte that ends a run of plain string bytes: a control character, `"` or `\`. */
const PLAIN = new Uint8Array(256).fill(1);
PLAIN.fill(0, 0, 0x20);
PLAIN[0x22] = 0;
PLAIN[0x5c] = 0;
/** What each one-letter escape stands for; -1 where the letter is not an escape (or is `u`). */
const ESCAPED = new Int16Array(256).fill(-1);
for (const [letter, byte] of Object.entries({ '"': 0x22, '\\': 0x5c, '/': 0x2f, b: 0x08, f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09 })) {
  ESCAPED[letter.charCodeAt(0)] = byte;
}

/**
 * The bytes of a little-endian word that are a control character, `"` or `\`, each marked by its high bit (the
 * classic SWAR tests for a byte below 0x20 and for a byte equal to each: a borrow can only flag a byte above
 * one that was already flagged, so the lowest mark is exact, and so is zero for none).
 */
function specials(word: number): number {
  const quote = word ^ 0x22222222;
  const backslash = word ^ 0x5c5c5c5c;
  return (((word - 0x20202020) & ~word) | ((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash)) & 0x80808080;
}

/**
 * Decodes the JSON string whose text starts at `start` (after its opening quote) into UTF-8 bytes,
 * written over the text itself: a decoded string is never longer than its escaped text, and each byte is
 * read before it is overwritten. Plain runs move eight bytes at a step; at a word holding a special byte the
 * plain bytes before it move one by one and the special byte is dealt with at once (found from the word's
 * marks, not by reading the word again per byte: pages escape a quote or a newline every few dozen bytes).
 * A lone surrogate escape (which UTF-8 cannot hold, and `JSON.parse` keeps) ends the decoding there: the
 * value then comes back as text, the part decoded so far and `JSON.parse` of the rest. Throws a SyntaxError
 * where the string is not valid JSON.
 */
function decodeInPlace(raw: Buffer, start: number): { end: number; value: Utf8Body | string } {
  const words = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const n = raw.length;
  let i = start;
  // Up to the first escape nothing moves: only look.
  while (i + 4 <= n && specials(words.getUint32(i, true)) === 0) i += 4;
  let o = i;
  while (i < n) {
    if (i + 8 <= n) {
      const low = words.getUint32(i, true);
      const high = words.getUint32(i + 4, true);
      const lowMarks = specials(low);
      const highMarks = specials(high);
      if ((lowMarks | highMarks) === 0) {
        words.setUint32(o, low, true);
        words.setUint32(o + 4, high, true);
        o += 8;
        i += 8;
        continue;
      }
      let marks = lowMarks;
      if (marks === 0) {
        words.setUint32(o, low, true);
        o += 4;
        i += 4;
        marks = highMarks;
      }
      // Little-endian: the lowest marked byte is the first special one; the bytes before it are plain.
      for (let plain = (31 - Math.clz32(marks & -marks)) >> 3; plain > 0; plain--) raw[o++] = raw[i++];
    }
    const c = raw[i]!;
    if (PLAIN[c] === 1) {
      raw[o++] = c;
      i++;
    } else if (c === 0x22) {
      return { end: i, value: new Utf8Body(raw.subarray(start, o)) };
    } else if (c !== 0x5c) {
      throw new SyntaxError('a control character in a JSON string');
    } else if (ESCAPED[raw[i + 1]!]! >= 0) {
      raw[o++] = ESCAPED[raw[i + 1]!]!;
      i += 2;
    } else if (raw[i + 1] === 0x75) {
      const step = unicodeEscape(raw, i, o);
      if (step < 0) {
        const rest = restAsText(raw, i);
        return { end: rest.end, value: raw.toString('utf8', start, o) + rest.text };
      }
      i += step >> 3;
      o += step & 7;
    } else {
      throw new SyntaxError('an invalid escape in a JSON string');
    }
  }
  throw new SyntaxError('an unterminated JSON string');
}

const HEX = new Int8Array(256).fill(-1);
for (let d = 0; d < 16; d++) {
  HEX['0123456789abcdef'.charCodeAt(d)] = d;
  HEX['0123456789ABCDEF'.charCodeAt(d)] = d;
}

/** The code unit of the `\uXXXX` escape at `i`; throws where its four hex digits are not. */
function codeUnit(raw: Buffer, i: number): number {
  const unit = i + 6 > raw.length ? -1 : (HEX[raw[i + 2]!]! << 12) | (HEX[raw[i + 3]!]! << 8) | (HEX[raw[i + 4]!]! << 4) | HEX[raw[i + 5]!]!;
  if (unit < 0) throw new SyntaxError('an invalid unicode escape in a JSON string');
  return unit;
}

/**
 * Writes the UTF-8 of the `\u` escape at `i` (with the low half after it, for a surrogate pair) at `o`, and
 * answers the text bytes read and the bytes written as `read << 3 | written`; -1 for a lone surrogate,
 * with nothing written.
 */
function unicodeEscape(raw: Buffer, i: number, o: number): number {
  let point = codeUnit(raw, i);
  let read = 6;
  if (point >= 0xdc00 && point <= 0xdfff) return -1;
  if (point >= 0xd800 && point <= 0xdbff) {
    if (raw[i + 6] !== 0x5c || raw[i + 7] !== 0x75) return -1;
    const low = codeUnit(raw, i + 6);
    if (low < 0xdc00 || low > 0xdfff) return -1;
    point = 0x10000 + ((point - 0xd800) << 10) + (low - 0xdc00);
    read = 12;
  }
  if (point < 0x80) {
    raw[o] = point;
    return (read << 3) | 1;
  }
  if (point < 0x800) {
    raw[o] = 0xc0 | (point >> 6);
    raw[o + 1] = 0x80 | (point & 0x3f);
    return (read << 3) | 2;
  }
  if (point < 0x10000) {
    raw[o] = 0xe0 | (point >> 12);
    raw[o + 1] = 0x80 | ((point >> 6) & 0x3f);
    raw[o + 2] = 0x80 | (point & 0x3f);
    return (read << 3) | 3;
  }
  raw[o] = 0xf0 | (point >> 18);
  raw[o + 1] = 0x80 | ((point >> 12) & 0x3f);
  raw[o + 2] = 0x80 | ((point >> 6) & 0x3f);
  raw[o + 3] = 0x80 | (point & 0x3f);
  return (read << 3) | 4;
}

/** The rest of the string from `i`, still as written, parsed by `JSON.parse`, and where it ends. */
function restAsText(raw: Buffer, i: number): { end: number; text: string } {
  let end = i;
  while (end < raw.length && raw[end] !== 0x22) end += raw[end] === 0x5c ? 2 : 1;
  if (end >= raw.length) throw new SyntaxError('an unterminated JSON string');
  return { end, text: JSON.parse(`"${raw.toString('utf8', i, end)}"`) as string };
}
