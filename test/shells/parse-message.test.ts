import { expect } from 'chai';
import { Utf8Body } from '../../domain/utf8-body.js';
import { LIFT_AT, parseMessage } from '../../shells/koa/mcp/parse-message.js';

/**
 * parseMessage against JSON.parse: for every text, the same answer (or both a SyntaxError), except that a
 * large publish_dashboard body arrives as its UTF-8 bytes, which must be exactly the UTF-8 of the string
 * JSON.parse gives.
 */

const filler = 'x'.repeat(LIFT_AT); // makes any body long enough to take the in-place path

/** A publish_dashboard call as a client sends it, with `literal` (JSON string text, quotes included) as its body. */
const publishCall = (literal: string, { before = '', after = '', space = '' } = {}) =>
  `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"publish_dashboard","arguments":{${before}"path":"sales/index.html","body"${space}:${space}${literal}${after}}}}`;

/** parseMessage of `text`, on a buffer of its own (it is rewritten), and JSON.parse of the same text. */
function both(text: string): { ours: unknown; theirs: unknown } {
  const outcome = (parse: () => unknown) => {
    try {
      return parse();
    } catch (err) {
      expect(err, `${String(err)}`).to.be.instanceOf(SyntaxError);
      return 'SyntaxError';
    }
  };
  return { ours: outcome(() => parseMessage(Buffer.from(text, 'utf8'))), theirs: outcome(() => JSON.parse(text)) };
}

/** The message with a lifted body turned back into the string it stands for, and whether one was lifted. */
function asParsed(message: unknown): { message: unknown; lifted: boolean } {
  const args = (message as { params?: { arguments?: Record<string, unknown> } } | null)?.params?.arguments;
  if (!(args?.body instanceof Utf8Body)) return { message, lifted: false };
  const bytes = Buffer.from(args.body.bytes);
  const text = args.body.text();
  // The bytes are the UTF-8 of the string itself (a lone surrogate never comes as bytes).
  expect(bytes.equals(Buffer.from(text, 'utf8'))).to.equal(true);
  return { message: { ...(message as object), params: { ...(message as { params: object }).params, arguments: { ...args, body: text } } }, lifted: true };
}

function expectSame(text: string, lifted: boolean): void {
  const { ours, theirs } = both(text);
  const parsed = asParsed(ours);
  expect(parsed.message).to.deep.equal(theirs);
  expect(parsed.lifted, 'whether the body came as bytes').to.equal(lifted);
}

describe('parseMessage: a large publish body decoded in place', () => {
  const escapes: Array<[string, string]> = [
    ['plain HTML', '<html><body><table><tr><td>1</td></tr></table></body></html>'],
    ['every one-letter escape', 'a\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti'],
    ['escapes side by side and at the ends', '\\n\\n\\"\\\\\\t'],
    ['unicode escapes of one, two and three bytes', '\\u0041\\u00e9\\u00E9\\u20ac\\uffff\\u0000'],
    ['a surrogate pair', 'party \\ud83c\\udf89 time \\uD83D\\uDE00'],
    ['DEL and every printable byte', `\u007f${Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('').replace(/["\\]/g, '\\$&')}`],
  ];
  for (const [name, content] of escapes) {
    for (const at of ['start', 'middle', 'end']) {
      it(`gives the body's UTF-8 bytes: ${name}, at the ${at}`, () => {
        const body = at === 'start' ? content + filler : at === 'end' ? filler + content : filler + content + filler;
        expectSame(publishCall(`"${body}"`), true);
      });
    }
  }

  it('gives the same bytes wherever the escapes fall against the eight-byte steps', () => {
    for (let shift = 0; shift < 16; shift++) {
      expectSame(publishCall(`"${'y'.repeat(shift)}${'<td>\\n\\u00e9\\"x\\"</td>'.repeat(5000)}${filler}"`), true);
    }
  });

  it('keeps a lone surrogate as JSON.parse does, so the body comes as text', () => {
    for (const lone of ['\\ud800', '\\udc00', '\\ud83c x', '\\ud83c\\u0041', '\\ud83c\\n']) {
      const { ours, theirs } = both(publishCall(`"${filler}ascii ${lone} rest \\n\\u00e9 end"`));
      expect(ours).to.deep.equal(theirs);
      expect(typeof (ours as { params: { arguments: { body: unknown } } }).params.arguments.body).to.equal('string');
    }
  });

  it('finds the body with blanks around its colon and with other arguments after it', () => {
    expectSame(publishCall(`"${filler}\\n"`, { space: ' \n\t' }), true);
    expectSame(publishCall(`"${filler}\\n"`, { after: ',"encoding":"utf8","name":"Sales"' }), true);
    expectSame(publishCall(`"${filler}"`, { before: '"name":"has \\"body\\": \\"inside\\"",' }), true);
  });

  it('refuses what JSON.parse refuses', () => {
    for (const broken of [
      `"${filler}\u0001"`, // a raw control character
      `"${filler}\n"`,
      `"${filler}\\x"`, // no such escape
      `"${filler}\\u12g4"`,
      `"${filler}\\u12"`,
      `"${filler}`, // never closed
      `"${filler}\\`,
    ]) {
      const { ours, theirs } = both(publishCall(broken));
      expect([ours, theirs]).to.deep.equal(['SyntaxError', 'SyntaxError']);
    }
    // Broken elsewhere than in the body.
    const { ours, theirs } = both(publishCall(`"${filler}"`).replace('"jsonrpc"', 'jsonrpc'));
    expect([ours, theirs]).to.deep.equal(['SyntaxError', 'SyntaxError']);
  });

  it('refuses a raw control character wherever it falls against the eight-byte steps, before and after an escape', () => {
    for (let shift = 0; shift < 16; shift++) {
      for (const [before, after] of [[filler, ''], [`${filler}\\n`, filler], [`\\"${filler}`, '']]) {
        const { ours, theirs } = both(publishCall(`"${before}${'z'.repeat(shift)}\u0007${'z'.repeat(20)}${after}"`));
        expect([ours, theirs], `shift ${shift}`).to.deep.equal(['SyntaxError', 'SyntaxError']);
      }
    }
  });

  it('refuses a lone surrogate in a body that is broken further on', () => {
    const { ours, theirs } = both(publishCall(`"${filler}\\ud800 then \\q"`));
    expect([ours, theirs]).to.deep.equal(['SyntaxError', 'SyntaxError']);
  });

  it('parses as written when the string was not the publish body', () => {
    const big = `"${filler}\\n\\u00e9\\ud83c\\udf89"`;
    const texts = [
      publishCall(big).replace('publish_dashboard', 'get_dashboard'), // another tool
      publishCall(big).replace('tools/call', 'prompts/get'), // another method
      `[${publishCall(big)}]`, // a batch
      publishCall(`"second"`, { before: `"spec":{"body":${big}},` }), // a nested body first
      publishCall(`${big}`, { after: ',"body":"last wins"' }), // the same name twice
    ];
    for (const text of texts) expectSame(text, false);
  });

  it('skips a body member that is not a string to the one that is', () => {
    expectSame(publishCall(`"${filler}\\n"`).replace('"arguments":{', '"arguments":{"body":5,'), true);
  });

  it('passes characters past ASCII through as their UTF-8, at every alignment', () => {
    for (let shift = 0; shift < 4; shift++) {
      const text = `${'y'.repeat(shift)}<td>é — 東京 🎉 \\n\\"</td>`.repeat(3000);
      expectSame(publishCall(`"${text}${filler}"`, { before: '"name":"Ventes — été",' }), true);
    }
    expectSame(publishCall(`"${filler}é — \\ud800 then é and \\u00e9"`), false); // a lone surrogate among them
  });

  it('leaves small, body-less and not-UTF-8 messages to the text decoder and JSON.parse', () => {
    expectSame(publishCall('"small \\n body"'), false);
    expectSame(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"${filler}"}}`, false);
    // A byte that is not UTF-8 reads as U+FFFD, as it always did; its bytes are not passed through.
    const [before, after] = publishCall('"@"').split('@') as [string, string];
    const raw = Buffer.concat([Buffer.from(before + filler), Buffer.from([0xff, 0xc3]), Buffer.from(after)]);
    const expected: unknown = JSON.parse(raw.toString('utf8'));
    expect(parseMessage(Buffer.from(raw))).to.deep.equal(expected);
  });
});
