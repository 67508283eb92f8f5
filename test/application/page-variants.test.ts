import { expect } from 'chai';
import { PREVIEW_TAGS_START, SPEC_PAGE_OPENING } from '../../domain/page-theme.js';
import { PageVariants, withNotices, withoutParamForm } from '../../application/hosting/page-variants.js';
import { PARAM_FORM_START } from '../../domain/param-values.js';

const specPage = (title: string) => ({
  body: Buffer.from(`${SPEC_PAGE_OPENING}<head>\n${PREVIEW_TAGS_START}<meta property="og:title" content="${title}">\n</head><body>${title}</body></html>`),
  etag: `"${title}"`,
});

describe('PageVariants', () => {
  it('answers a public page without a theme with the stored bytes themselves', () => {
    const file = specPage('sales');
    expect(new PageVariants().of(file, 'public')).to.equal(file);
  });

  it('drops the preview tags from a private answer, under its own ETag, and makes it once per file', () => {
    const variants = new PageVariants();
    const file = specPage('sales');
    const first = variants.of(file, 'private');
    expect(first.body.toString()).not.to.include('og:title');
    expect(first.body.toString()).to.include('<body>sales</body>');
    expect(first.etag).to.equal('"sales-private"');
    expect(variants.of({ ...file }, 'private')).to.equal(first);
    expect(variants.of(specPage('other'), 'private').etag).to.equal('"other-private"');
  });

  it('pins a theme on top of the private variant, each combination under its own ETag', () => {
    const variants = new PageVariants();
    const file = specPage('sales');
    const dark = variants.of(file, 'private', 'dark');
    expect(dark.body.toString()).to.include('data-theme="dark"').and.not.include('og:title');
    expect(dark.etag).to.equal('"sales-private-dark"');
    expect(variants.of(file, 'public', 'dark').body.toString()).to.include('og:title');
    expect(variants.of(file, 'public', 'dark').etag).to.equal('"sales-dark"');
  });

  it('leaves bytes that are not a spec page as they are, whatever the answer', () => {
    const file = { body: Buffer.from('<!doctype html><p>hand-written</p>'), etag: '"hand"' };
    expect(new PageVariants().of(file, 'private', 'dark')).to.equal(file);
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
