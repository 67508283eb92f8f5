import { expect } from 'chai';
import { applyMetadataPatch, parseMetadataPatch, type DashboardMetadata } from '../../domain/metadata.js';

const message = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('domain: metadata semantics', () => {
  const current: DashboardMetadata = { name: 'Sales', tags: ['q1', 'eu'], chart: 'bar', visibility: 'public' };

  it('preserves fields that are omitted or null', () => {
    const patch = parseMetadataPatch({ name: null, tags: undefined, chart: null, visibility: null });
    expect(patch).to.deep.equal({});
    expect(applyMetadataPatch(current, patch)).to.deep.equal(current);
  });

  it('replaces given fields and clears tags with []', () => {
    const patch = parseMetadataPatch({ name: 'Revenue', tags: [], chart: 'line', visibility: 'private' });
    expect(applyMetadataPatch(current, patch)).to.deep.equal({ name: 'Revenue', tags: [], chart: 'line', visibility: 'private' });
  });

  it('refuses an empty or whitespace-only name', () => {
    expect(message(() => parseMetadataPatch({ name: '' }))).to.equal('name must be a non-empty string');
    expect(message(() => parseMetadataPatch({ name: '   ' }))).to.equal('name must be a non-empty string');
  });

  it('caps a name at 200 characters, tags at 64 characters and 50 distinct tags, naming the field and the limit', () => {
    expect(parseMetadataPatch({ name: 'n'.repeat(200), tags: Array.from({ length: 50 }, (_, i) => `${i}`.padEnd(64, 't')) })).to.have.property('name');
    expect(message(() => parseMetadataPatch({ name: 'n'.repeat(201) }))).to.equal('name exceeds 200-char limit (got 201)');
    expect(message(() => parseMetadataPatch({ tags: ['ok', 't'.repeat(65)] }))).to.equal('tags[1] exceeds 64-char limit (got 65)');
    expect(message(() => parseMetadataPatch({ tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }))).to.equal('tags exceeds 50-tag limit (got 51)');
    expect(parseMetadataPatch({ tags: Array.from({ length: 60 }, (_, i) => `t${i % 50}`) }).tags).to.have.length(50);
  });

  it('refuses an empty chart', () => {
    expect(message(() => parseMetadataPatch({ chart: '' }))).to.equal('chart must be a non-empty string');
  });

  it('refuses tags that are not an array', () => {
    expect(message(() => parseMetadataPatch({ tags: 'q1' }))).to.equal('tags must be an array of strings');
  });

  it('refuses a non-string tag by index and typeof, never filtering it', () => {
    expect(message(() => parseMetadataPatch({ tags: ['a', 5] }))).to.equal('tags[1] must be a string (got number)');
    expect(message(() => parseMetadataPatch({ tags: [true] }))).to.equal('tags[0] must be a string (got boolean)');
    expect(message(() => parseMetadataPatch({ tags: ['a', 'b', null] }))).to.equal('tags[2] must be a string (got object)');
  });

  it('refuses visibility other than public or private', () => {
    expect(message(() => parseMetadataPatch({ visibility: 'secret' }))).to.equal('visibility must be "public" or "private"');
  });
});
