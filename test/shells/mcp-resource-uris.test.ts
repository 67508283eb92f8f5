import { expect } from 'chai';
import { JsonRpcError } from '../../shells/koa/mcp/jsonrpc.js';
import { parseImageResourceUri, parseResourceUri } from '../../shells/koa/mcp/resources.js';

const page = (uri: unknown) => parseResourceUri('service', uri);
const image = (uri: unknown) => parseImageResourceUri('service', uri);
const refusedCode = (uri: unknown) => {
  try {
    page(uri);
  } catch (err) {
    return err instanceof JsonRpcError ? err.code : 'not a JSON-RPC error';
  }
  return 'accepted';
};

describe('shells: resource URIs with the page\'s query string (decision 0283)', () => {
  it('reads a dashboard URI with no query as before, its query empty', () => {
    expect(page('service://vera/sales')).to.deep.equal({ uri: 'service://vera/sales', handle: 'vera', slug: 'sales', query: '' });
  });

  it('keeps a query string as URLSearchParams and encodeURIComponent write it, raw, for the host to read', () => {
    const written = new URLSearchParams([['region', 'Middle East & Africa'], ['period', '2026-01-01..2026-03-31'], ['tags', "a'b(c)!*"]]).toString();
    expect(page(`service://vera/sales?${written}`)).to.include({ handle: 'vera', slug: 'sales', query: written });
    const encoded = `region=${encodeURIComponent("Côte d'Ivoire")}&period.from=2026-01-01&period.to=2026-03-31`;
    expect(page(`service://vera/sales?${encoded}`).query).to.equal(encoded);
  });

  it('refuses with -32602 a query no URL would carry: empty, raw spaces, quotes, angle brackets, or over 4096 characters', () => {
    for (const uri of ['service://vera/sales?', 'service://vera/sales?a b', 'service://vera/sales?a="x"', 'service://vera/sales?a=<b>',
      'service://vera/sales?a=1#x', 'service://vera/sales/x?a=1', 'service://vera/SALES?a=1', `service://vera/sales?a=${'1'.repeat(4095)}`]) {
      expect(refusedCode(uri), uri).to.equal(-32602);
    }
    expect(refusedCode(`service://vera/sales?a=${'1'.repeat(4094)}`)).to.equal('accepted');
  });

  it('reads an image URI\'s theme from its query, beside parameter values in any order', () => {
    expect(image('service://vera/_image/sales.png')).to.deep.equal({ uri: 'service://vera/_image/sales.png', handle: 'vera', slug: 'sales', query: '', theme: 'light' });
    expect(image('service://vera/_image/sales.png?theme=dark')).to.include({ query: 'theme=dark', theme: 'dark' });
    expect(image('service://vera/_image/sales.png?region=South&theme=dark')).to.include({ query: 'region=South&theme=dark', theme: 'dark' });
    expect(image('service://vera/_image/sales.png?theme=light&region=South')).to.include({ theme: 'light', slug: 'sales' });
  });

  it('leaves an image URI it cannot read to the page parser, which refuses it', () => {
    for (const uri of ['service://vera/_image/sales.png?theme=sepia', 'service://vera/_image/sales.png?theme=dark&theme=light',
      'service://vera/_image/sales.png?a b', 'service://vera/_image/sales.png?', 'other://vera/_image/sales.png?theme=dark']) {
      expect(image(uri), uri).to.equal(null);
      expect(refusedCode(uri), uri).to.equal(-32602);
    }
  });
});
