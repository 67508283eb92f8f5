import { expect } from 'chai';
import { parsePath, validateFilename, validateSlug, validateHandle } from '../../domain/names.js';
import { refusal } from '../support/refusal.js';


describe('domain: slug, filename and path', () => {
  it('accepts slugs of [a-z0-9-] up to 64 characters', () => {
    expect(validateSlug('sales-2026')).to.equal('sales-2026');
    expect(validateSlug('a'.repeat(64))).to.equal('a'.repeat(64));
  });

  it('refuses a slug outside the charset with the spec text', () => {
    expect(refusal(() => validateSlug('Sales')).message).to.equal('slug "Sales" must match [a-z0-9-]');
    expect(refusal(() => validateSlug('a_b')).message).to.equal('slug "a_b" must match [a-z0-9-]');
    expect(refusal(() => validateSlug('a_b')).code).to.equal('invalid_argument');
  });

  it('refuses a slug over 64 characters with its length', () => {
    expect(refusal(() => validateSlug('a'.repeat(65))).message).to.equal('slug exceeds 64-char limit (got 65)');
  });

  it('refuses an empty slug', () => {
    expect(refusal(() => validateSlug('')).message).to.equal('slug must not be empty');
  });

  it('refuses reserved slugs by name', () => {
    expect(refusal(() => validateSlug('healthz')).message).to.equal('slug "healthz" is reserved');
  });

  it('checks filenames against [a-z0-9._-]', () => {
    expect(validateFilename('data.v2.json')).to.equal('data.v2.json');
    expect(refusal(() => validateFilename('Data.json')).message).to.equal('filename "Data.json" must match [a-z0-9._-]');
    expect(refusal(() => validateFilename('..')).message).to.equal('filename ".." must match [a-z0-9._-]');
    expect(validateFilename(`${'a'.repeat(250)}.html`)).to.have.length(255);
    expect(refusal(() => validateFilename(`${'a'.repeat(251)}.html`)).message).to.equal('filename exceeds 255-char limit (got 256)');
    expect(refusal(() => validateFilename('__proto__')).message).to.equal('filename "__proto__" is reserved');
  });

  it('reads a bare slug as <slug>/index.html', () => {
    expect(parsePath('sales')).to.deep.equal({ slug: 'sales', filename: 'index.html' });
    expect(parsePath('sales/data.csv')).to.deep.equal({ slug: 'sales', filename: 'data.csv' });
  });

  it('refuses paths that are not one or two segments', () => {
    expect(refusal(() => parsePath('a/b/c')).message).to.equal('path "a/b/c": must be <slug>/<filename> (exactly two segments)');
    expect(refusal(() => parsePath('a/')).message).to.equal('path "a/": must be <slug>/<filename> (exactly two segments)');
    expect(refusal(() => parsePath('/a')).message).to.equal('path "/a": must be <slug>/<filename> (exactly two segments)');
  });

  it('refuses an empty path', () => {
    expect(refusal(() => parsePath('')).message).to.equal('path must not be empty');
    expect(refusal(() => parsePath(undefined)).message).to.equal('path must not be empty');
  });

  it('checks the slug and filename inside a path', () => {
    expect(refusal(() => parsePath('Bad/index.html')).message).to.equal('slug "Bad" must match [a-z0-9-]');
    expect(refusal(() => parsePath('ok/Bad.html')).message).to.equal('filename "Bad.html" must match [a-z0-9._-]');
  });

  it('refuses reserved and malformed handles', () => {
    expect(validateHandle('ada')).to.equal('ada');
    expect(refusal(() => validateHandle('www')).message).to.equal('handle "www" is reserved');
    expect(refusal(() => validateHandle('-ada')).code).to.equal('invalid_argument');
  });
});
