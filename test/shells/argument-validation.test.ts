import { expect } from 'chai';
import { checkArguments, checkText, useCaseCheckedArguments } from '../../shells/koa/mcp/argument-validation.js';
import { Utf8Body } from '../../domain/utf8-body.js';

/** The one set of arguments the registry leaves to the use case: declared ones keep their type unchecked, undeclared ones are accepted. */
describe('tool argument validation: use-case-checked arguments', () => {
  const schema = {
    type: 'object',
    properties: { slug: { type: 'string' }, name: { type: ['string', 'null'] }, workspace: { type: 'string' } },
    required: ['slug'],
  };
  const noWorkspace = { type: 'object', properties: { slug: { type: 'string' } }, required: ['slug'] };

  it('adds a declared workspace to the tool\'s own list, and only a declared one', () => {
    expect([...useCaseCheckedArguments(schema, ['name'])].sort()).to.deep.equal(['name', 'workspace']);
    expect([...useCaseCheckedArguments(noWorkspace)]).to.deep.equal([]);
  });

  it('leaves the type of a declared use-case-checked argument to the use case', () => {
    expect(checkArguments({ slug: 's', name: 5, workspace: 7 }, schema)).to.equal('name must be a string');
    expect(checkArguments({ slug: 's', name: 5, workspace: 7 }, schema, useCaseCheckedArguments(schema))).to.equal('name must be a string');
    expect(checkArguments({ slug: 's', name: 5, workspace: 7 }, schema, useCaseCheckedArguments(schema, ['name']))).to.equal(null);
    expect(checkArguments({ slug: 5 }, schema, useCaseCheckedArguments(schema, ['name']))).to.equal('slug must be a string');
  });

  it('refuses an undeclared argument as unknown unless the tool leaves it to its use case', () => {
    expect(checkArguments({ slug: 's', workspace: 'team' }, noWorkspace, useCaseCheckedArguments(noWorkspace))).to.equal('unknown argument "workspace"; accepted: slug');
    expect(checkArguments({ slug: 's', workspace: 'team' }, noWorkspace, useCaseCheckedArguments(noWorkspace, ['workspace']))).to.equal(null);
  });
});

/** Text no store keeps as sent, refused for every argument at once (issue 30, item 10). */
describe('tool argument validation: text', () => {
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
