import { expect } from 'chai';
import { checkArguments, useCaseCheckedArguments } from '../../shells/koa/mcp/argument-validation.js';

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
