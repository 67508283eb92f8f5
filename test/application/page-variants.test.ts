import { expect } from 'chai';
import { PREVIEW_TAGS_START, SPEC_PAGE_OPENING } from '../../domain/page-theme.js';
import { PageVariants, withNotices, withoutParamForm } from '../../application/hosting/page-variants.js';
import { PARAM_FORM_START } from '../../domain/param-values.js';

const specPage = (title: string) => ({
  body: Buffer.from(`${SPEC_PAGE_OPENING}<head>\n${PREVIEW_TAGS_START}<meta property="og:title" content="${title}">\n</head><body>${title}</body></html>`),
  etag: `"${title}"`,
});

const variantsFor = () => new PageVariants((subdomain, slug) => `https://${subdomain}.dash.example/${slug}`);
const preview = { subdomain: 'ada', slug: 'sales', name: 'Sales <2026>', contentType: 'text/html; charset=utf-8' };

describe('PageVariants', () => {
  it('answers a public page without a theme with the stored bytes themselves', () => {
    const file = specPage('sales');
    expect(variantsFor().of(file, { visibility: 'public' })).to.equal(file);
  });

  it('drops the preview tags from a private answer, under its own ETag, and makes it once per file', () => {
    const variants = variantsFor();
    const file = specPage('sales');
    const first = variants.of(file, { visibility: 'private' });
    expect(first.body.toString()).not.to.include('og:title');
    expect(first.body.toString()).to.include('<body>sales</body>');
    expect(first.etag).to.equal('"sales-private"');
    expect(variants.of({ ...file }, { visibility: 'private' })).to.equal(first);
    expect(variants.of(specPage('other'), { visibility: 'private' }).etag).to.equal('"other-private"');
  });

  it('pins a theme on top of the private variant, each combination under its own ETag', () => {
    const variants = variantsFor();
    const file = specPage('sales');
    const dark = variants.of(file, { visibility: 'private', theme: 'dark' });
    expect(dark.body.toString()).to.include('data-theme="dark"').and.not.include('og:title');
    expect(dark.etag).to.equal('"sales-private-dark"');
    expect(variants.of(file, { visibility: 'public', theme: 'dark' }).body.toString()).to.include('og:title');
    expect(variants.of(file, { visibility: 'public', theme: 'dark' }).etag).to.equal('"sales-dark"');
  });

  it('leaves bytes that are not a spec page as they are, whatever the answer', () => {
    const file = { body: Buffer.from('<!doctype html><p>hand-written</p>'), etag: '"hand"' };
    expect(variantsFor().of(file, { visibility: 'private', theme: 'dark', preview })).to.equal(file);
  });

  it('adds preview tags to a public body page once, under their own ETag; never to a private one or one with tags of its own', () => {
    const variants = variantsFor();
    const file = { body: Buffer.from('<!doctype html><html><head><title>t</title></head><p>hand-written</p></html>'), etag: '"hand"' };
    const shown = variants.of(file, { visibility: 'public', preview });
    expect(shown.body.toString()).to.include('<meta property="og:title" content="Sales &lt;2026&gt;">').and.include('https://ada.dash.example/sales');
    expect(shown.etag).to.match(/^"hand-preview-[0-9a-f]{16}"$/);
    expect(variants.of({ ...file }, { visibility: 'public', preview })).to.equal(shown);
    expect(variants.of(file, { visibility: 'private', preview })).to.equal(file);
    expect(variants.of(file, { visibility: 'public', preview: { ...preview, contentType: 'text/plain' } })).to.equal(file);
    const own = { body: Buffer.from('<html><head><meta name="twitter:card" content="summary"></head></html>'), etag: '"own"' };
    expect(variants.of(own, { visibility: 'public', preview })).to.equal(own);
    expect(variants.of(own, { visibility: 'public', preview })).to.equal(own);
  });

  it('takes the parameter form out of a spec page for an embed, keeping the notices after it; other bytes as they are', () => {
    const form = `${PARAM_FORM_START} method="get"><select name="region"></select><button type="submit">Apply</button></form>`;
    const page = { body: Buffer.from(`${SPEC_PAGE_OPENING}<body><h1>Sales</h1>${form}<main>figures</main></body>`), etag: '"p"' };
    const noticed = withNotices(page, ['Region: "x" is not one of the options; showing the default']);
    expect(withoutParamForm(noticed.body).toString()).to.equal(
      `${SPEC_PAGE_OPENING}<body><h1>Sales</h1><p class="notice" role="status">Region: &quot;x&quot; is not one of the options; showing the default</p><main>figures</main></body>`,
    );
    const written = Buffer.from(`<!doctype html>${form}`);
    expect(withoutParamForm(written)).to.equal(written);
  });
});
