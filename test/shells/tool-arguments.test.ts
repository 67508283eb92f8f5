import { expect } from 'chai';
import { checkText, declareInput, IntegerIn, readArguments, Text, TextList, Unlisted, Workspace } from '../../shells/koa/mcp/tools/arguments.js';
import { Utf8Body } from '../../domain/utf8-body.js';

class ProbeInput {
  @Text({ description: 'A slug.', documented: { maxLength: 64 } })
  slug!: string;

  @Text({ optional: true, nullable: true, refusal: 'name must be a non-empty string' })
  name?: string | null;

  @TextList({ optional: true })
  tags?: string[] | null;

  @IntegerIn(1, 100, { optional: true })
  limit?: number | null;

  @Workspace('Where.')
  workspace?: unknown;
}

class UnlistedInput {
  @Text()
  slug!: string;

  @Unlisted()
  workspace?: unknown;
}

const read = (args: Record<string, unknown>) => readArguments(declareInput(ProbeInput), args);

/** A tool's input class is its one declaration: the schema and the checks come from it. */
describe('tool arguments: input classes', () => {
  it('derives the inputSchema from the class, in declaration order, documenting what the domain checks', () => {
    expect(declareInput(ProbeInput).inputSchema).to.deep.equal({
      type: 'object',
      properties: {
        slug: { type: 'string', description: 'A slug.', maxLength: 64 },
        name: { type: ['string', 'null'] },
        tags: { type: 'array', items: { type: 'string' } },
        limit: { type: 'integer', minimum: 1, maximum: 100 },
        workspace: { type: 'string', description: 'Where.' },
      },
      required: ['slug'],
      additionalProperties: false,
    });
  });

  it('reads a valid call into an instance of the class, moving the values out of the arguments', () => {
    const args: Record<string, unknown> = { slug: 's', tags: ['a'], limit: 3 };
    const outcome = read(args);
    expect('input' in outcome && outcome.input).to.be.instanceOf(ProbeInput).and.to.include({ slug: 's', limit: 3 });
    expect(args).to.deep.equal({ slug: undefined, tags: undefined, limit: undefined });
  });

  it('refuses in the spec\'s words: unknown first, then missing, then the first wrong value', () => {
    expect(read({ slug: 's', nope: 1 })).to.deep.equal({ problem: 'unknown argument "nope"; accepted: slug, name, tags, limit, workspace' });
    expect(read({ limit: 500 })).to.deep.equal({ problem: 'slug is required' });
    expect(read({ slug: null })).to.deep.equal({ problem: 'slug is required' });
    expect(read({ slug: 5 })).to.deep.equal({ problem: 'slug must be a string' });
    expect(read({ slug: 's', name: 5 })).to.deep.equal({ problem: 'name must be a non-empty string' });
    expect(read({ slug: 's', tags: 'a' })).to.deep.equal({ problem: 'tags must be an array of strings' });
    expect(read({ slug: 's', tags: ['a', 7] })).to.deep.equal({ problem: 'tags[1] must be a string (got number)' });
    expect(read({ slug: 's', limit: 1.5 })).to.deep.equal({ problem: 'limit must be an integer from 1 to 100' });
  });

  it('passes workspace on as sent, for the grant-lock rules to judge, and null means not given', () => {
    for (const workspace of [42, 'team', ['x']]) {
      const outcome = read({ slug: 's', workspace });
      expect('input' in outcome && outcome.input.workspace).to.deep.equal(workspace);
    }
    expect(read({ slug: 's', name: null, tags: null, limit: null })).to.have.property('input');
  });

  it('reads an unlisted argument without offering it in the schema', () => {
    const declared = declareInput(UnlistedInput);
    expect(Object.keys(declared.inputSchema.properties as object)).to.deep.equal(['slug']);
    expect(readArguments(declared, { slug: 's', workspace: 'team' })).to.have.nested.property('input.workspace', 'team');
    expect(readArguments(declared, { slug: 's', other: 1 })).to.deep.equal({ problem: 'unknown argument "other"; accepted: slug' });
  });
});

/** Text no store keeps as sent, refused for every argument at once (issue 30, item 10). */
describe('tool arguments: text', () => {
  it('names the first argument holding a NUL character, at any depth and in object keys', () => {
    expect(checkText({ name: 'a\u0000b' })).to.equal('name must not contain a NUL character (\\u0000)');
    expect(checkText({ tags: ['ok', 'b\u0000'] })).to.equal('tags[1] must not contain a NUL character (\\u0000)');
    expect(checkText({ spec: { panels: [{ title: '\u0000' }] } })).to.equal('spec.panels[0].title must not contain a NUL character (\\u0000)');
    expect(checkText({ spec: { 'a\u0000': 1 } })).to.equal('spec key must not contain a NUL character (\\u0000)');
    expect(checkText({ body: new Utf8Body(Buffer.from('<p>\u0000</p>')) })).to.equal('body must not contain a NUL character (\\u0000)');
  });

  it('refuses a lone surrogate and accepts a pair', () => {
    expect(checkText({ name: 'a\ud800' })).to.equal('name must be valid Unicode text (it contains a lone surrogate)');
    expect(checkText({ name: '\udc00a' })).to.equal('name must be valid Unicode text (it contains a lone surrogate)');
    expect(checkText({ name: 'chart 📈', tags: ['ünï'], n: 3, ok: true, none: null, body: new Utf8Body(Buffer.from('<p>x</p>')) })).to.equal(null);
  });
});
