import { expect } from 'chai';
import {
  embedExpiry,
  embedExpiryAccepted,
  embedFrameAncestors,
  embedSignedMessage,
  EMBED_CLOCK_SKEW_MS,
  EMBED_MAX_LIFETIME_MS,
  normaliseOrigin,
  normaliseOrigins,
  parseEmbedQuery,
} from '../../domain/embeds.js';
import { refusal } from '../support/refusal.js';

const SIG = 'ab'.repeat(32);

describe('domain: signed embeds', () => {
  it('signs the path and the expiry, in the order the URL carries them', () => {
    expect(embedSignedMessage('sales', 1790000000)).to.equal('/_embed/sales?exp=1790000000');
  });

  it('signs the parameters between the path and the expiry: encoded, sorted as ASCII, whatever order they come in', () => {
    const message = '/_embed/sales?period=2026-01-01..2026-03-31&region=North&region=South%20East&exp=1790000000';
    expect(embedSignedMessage('sales', 1790000000, [['region', 'South East'], ['period', '2026-01-01..2026-03-31'], ['region', 'North']])).to.equal(message);
    expect(embedSignedMessage('sales', 1790000000, [['q', "a&b=c d'(*)!~+"]])).to.equal("/_embed/sales?q=a%26b%3Dc%20d'(*)!~%2B&exp=1790000000");
    expect(embedSignedMessage('sales', 1790000000, [['x', 'é']])).to.equal('/_embed/sales?x=%C3%A9&exp=1790000000');
  });

  it('reads exp, sig and the parameters from a query, in any order, decoded as a form does', () => {
    expect(parseEmbedQuery(`exp=1790000000&sig=${SIG}`)).to.deep.equal({ exp: 1790000000, sig: SIG, params: [] });
    expect(parseEmbedQuery(`sig=${SIG}&exp=1790000000`)).to.deep.equal({ exp: 1790000000, sig: SIG, params: [] });
    expect(parseEmbedQuery(`region=South+East&sig=${SIG}&q=a%26b%3Dc&exp=1790000000`)).to.deep.equal({
      exp: 1790000000,
      sig: SIG,
      params: [['region', 'South East'], ['q', 'a&b=c']],
    });
  });

  it('refuses a query without exactly one plain exp and sig, an empty or bare part, or a parameter spelling a reserved name', () => {
    for (const query of [
      '',
      'exp=1790000000',
      `exp=1790000000&sig=${SIG}&region`,
      `exp=1790000000&sig=${SIG}&`,
      `exp=1790000000&sig=${SIG}&=x`,
      `exp=1790000000&sig=${SIG}&ex%70=1`,
      `exp=1790000000&sig=${SIG}&sig=${SIG}`,
      `exp=1790000000&exp=1790000001`,
      `exp=01790000000&sig=${SIG}`,
      `exp=17900e5&sig=${SIG}`,
      `exp=1790000000&sig=${SIG.toUpperCase()}`,
      `exp=1790000000&sig=${SIG.slice(2)}`,
      `exp=1790000000&sig`,
    ]) {
      expect(parseEmbedQuery(query), query).to.equal(null);
    }
  });

  it('accepts an expiry ahead by at most 30 days (and the clock skew), never one in the past', () => {
    const now = Date.UTC(2026, 10, 27, 8, 0, 0);
    const seconds = (ms: number) => Math.floor(ms / 1000);
    expect(embedExpiryAccepted(seconds(now + 60_000), now)).to.equal(true);
    expect(embedExpiryAccepted(seconds(now), now)).to.equal(false);
    expect(embedExpiryAccepted(seconds(now - 1000), now)).to.equal(false);
    expect(embedExpiryAccepted(seconds(now + EMBED_MAX_LIFETIME_MS + EMBED_CLOCK_SKEW_MS), now)).to.equal(true);
    expect(embedExpiryAccepted(seconds(now + EMBED_MAX_LIFETIME_MS + EMBED_CLOCK_SKEW_MS) + 1, now)).to.equal(false);
  });

  it('makes an expiry for a lifetime up to 30 days and refuses longer or none', () => {
    const now = Date.UTC(2026, 10, 27, 8, 0, 0);
    expect(embedExpiry(86_400_000, now)).to.equal(now / 1000 + 86_400);
    expect(embedExpiry(EMBED_MAX_LIFETIME_MS, now)).to.equal((now + EMBED_MAX_LIFETIME_MS) / 1000);
    expect(refusal(() => embedExpiry(EMBED_MAX_LIFETIME_MS + 60_000, now)).message).to.equal('expiry must be at most 30 days ahead');
    expect(refusal(() => embedExpiry(0, now)).message).to.equal('expiry must be in the future');
  });

  it('normalises origins to scheme, host and a non-default port', () => {
    expect(normaliseOrigin('https://Example.COM')).to.equal('https://example.com');
    expect(normaliseOrigin(' https://example.com/ ')).to.equal('https://example.com');
    expect(normaliseOrigin('https://example.com:443')).to.equal('https://example.com');
    expect(normaliseOrigin('http://intranet.example:8080')).to.equal('http://intranet.example:8080');
    expect(normaliseOrigin('http://127.0.0.1:3000')).to.equal('http://127.0.0.1:3000');
    expect(normaliseOrigin('http://[::1]:3000')).to.equal('http://[::1]:3000');
  });

  it('refuses anything that is not an origin, so nothing else reaches the CSP header', () => {
    for (const text of [
      'example.com',
      'https://example.com/path',
      'https://example.com?x=1',
      'https://user@example.com',
      'https://*.example.com',
      "https://example.com; script-src 'unsafe-inline'",
      'https://example.com https://evil.example',
      "'self'",
      'javascript:alert(1)',
      'ftp://example.com',
      'https://-bad-.example',
      'https://example.com:99999',
      'https://exa mple.com',
    ]) {
      expect(refusal(() => normaliseOrigin(text)).message, text).to.match(/^origin ".*" must be a scheme and host like https:\/\/example\.com/);
    }
  });

  it('drops duplicates and empty lines, and caps a list at 20 origins', () => {
    expect(normaliseOrigins(['https://a.example', '', 'https://A.example/', 'https://b.example'])).to.deep.equal(['https://a.example', 'https://b.example']);
    const many = Array.from({ length: 21 }, (_, i) => `https://h${i}.example`);
    expect(refusal(() => normaliseOrigins(many)).message).to.equal('a dashboard can allow at most 20 origins');
  });

  it("frames for the listed origins only, and for none with an empty list", () => {
    expect(embedFrameAncestors(['https://a.example', 'https://b.example'])).to.equal('https://a.example https://b.example');
    expect(embedFrameAncestors([])).to.equal("'none'");
  });
});
