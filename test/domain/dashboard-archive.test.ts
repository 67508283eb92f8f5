import { expect } from 'chai';
import { refusal } from '../support/refusal.js';
import { parseArchiveManifest } from '../../domain/dashboard-archive.js';

const SHA = 'a'.repeat(64);
const version = (extra: Record<string, unknown> = {}) => ({
  name: null,
  created_at: '2025-01-01T00:00:00.000Z',
  current: true,
  files: { 'index.html': { sha256: SHA, size: 3 } },
  spec: null,
  ...extra,
});
const dashboard = (extra: Record<string, unknown> = {}) => ({
  slug: 'sales',
  name: 'Sales',
  tags: [],
  chart: null,
  visibility: 'public',
  connection: 'self',
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-02T00:00:00.000Z',
  aliases: [],
  versions: [version()],
  refresh_schedule: null,
  ...extra,
});
const manifest = (dashboards: unknown[] = [dashboard()], extra: Record<string, unknown> = {}) => ({
  format: 'dashpub-export',
  version: 1,
  exported_at: '2025-01-03T00:00:00.000Z',
  source: { kind: 'personal', name: 'ada' },
  dashboards,
  ...extra,
});

/** The text `parseArchiveManifest` refuses `input` with, checking the code too. */
function refusedWith(input: unknown, code = 'invalid_argument'): string {
  const err = refusal(() => parseArchiveManifest(input));
  expect(err.code).to.equal(code);
  return err.message;
}

describe('domain: export archive manifest', () => {
  it('accepts a well-formed manifest as it is', () => {
    expect(parseArchiveManifest(manifest())).to.deep.equal(manifest());
  });

  it('refuses another format or version', () => {
    expect(refusedWith(manifest(undefined, { format: 'zip' }))).to.equal('the manifest\'s format must be "dashpub-export" (got "zip")');
    expect(refusedWith(manifest(undefined, { version: 2 }))).to.equal('archive version 2 is not supported: this dashpub reads version 1');
  });

  it('names the dashboard, version and file of each problem', () => {
    expect(refusedWith(manifest([dashboard({ slug: 'Bad Slug' })]))).to.equal('dashboard "Bad Slug": slug "Bad Slug" must match [a-z0-9-]');
    expect(refusedWith(manifest([dashboard({ versions: [version({ files: { '../x': { sha256: SHA, size: 1 } } })] })]))).to.equal(
      'dashboard "sales": version 1: file "../x": filename "../x" must match [a-z0-9._-]',
    );
    expect(refusedWith(manifest([dashboard({ versions: [version({ files: { 'a.html': { sha256: 'xyz', size: 1 } } })] })]))).to.equal(
      'dashboard "sales": version 1: file "a.html": sha256 must be 64 lowercase hex digits',
    );
    expect(refusedWith(manifest([dashboard({ versions: [version(), version()] })]))).to.equal('dashboard "sales": exactly one version must be current (got 2)');
    expect(refusedWith(manifest([dashboard({ versions: [version({ files: { 'a.html': { sha256: SHA, size: 64 * 1024 * 1024 + 1 } } })] })]))).to.match(
      /"a\.html": size 67108865 is over the 67108864-byte limit for one file of an archive$/,
    );
    expect(refusedWith(manifest([dashboard({ versions: [version({ files: JSON.parse(`{"__proto__": {"sha256": "${SHA}", "size": 3}}`) })] })]))).to.match(
      /filename "__proto__" is reserved$/,
    );
    expect(refusedWith(manifest([dashboard({ connection: 'warehouse' })]))).to.match(/^dashboard "sales": connection "warehouse" is not a valid connection/);
    expect(refusedWith(manifest([dashboard({ versions: [version({ spec: { panels: [] } })] })]))).to.match(/^dashboard "sales": version 1: spec: /);
    expect(refusedWith(manifest([dashboard({ versions: [version({ spec: { title: 'x'.repeat(5_300_000), panels: [] } })] })]), 'payload_too_large')).to.match(
      /^dashboard "sales": version 1: spec: spec is \d+ bytes, over the 5242880-byte limit/,
    );
  });

  it('refuses two entries claiming one slug, as a slug or an alias', () => {
    expect(refusedWith(manifest([dashboard(), dashboard({ slug: 'report', aliases: ['sales'] })]))).to.equal(
      'dashboard "report": slug "sales" is also claimed by dashboard "sales"',
    );
  });
});
