import { expect } from 'chai';
import { handleBaseFrom, handleCandidates, issuerMayUseHttp } from '../../domain/upstream-sign-in.js';
import { loadSettings } from '../../shells/config.js';

describe('domain: upstream sign-in rules', () => {
  it('reduces a provider\'s username or email to a handle base', () => {
    expect(handleBaseFrom('Ada.Lovelace')).to.equal('ada-lovelace');
    expect(handleBaseFrom('--José  Núñez--')).to.equal('jose-nunez');
    expect(handleBaseFrom('jane_doe@corp.example')).to.equal('jane-doe');
    expect(handleBaseFrom('@@@')).to.equal('user');
    expect(handleBaseFrom('x'.repeat(39) + '-y')).to.equal('x'.repeat(39));
  });

  it('offers the base, then numbered names that fit 40 characters, skipping reserved names', () => {
    const first = (base: string, n: number) => [...handleCandidates(base)].slice(0, n);
    expect(first('ada', 3)).to.deep.equal(['ada', 'ada-2', 'ada-3']);
    expect(first('admin', 2)).to.deep.equal(['admin-2', 'admin-3']);
    expect(first('d'.repeat(40), 2)).to.deep.equal(['d'.repeat(40), `${'d'.repeat(38)}-2`]);
    expect([...handleCandidates('ada')]).to.have.length(100);
  });

  it('lets only a loopback issuer use plain http', () => {
    expect(issuerMayUseHttp('http://127.0.0.1:4000')).to.equal(true);
    expect(issuerMayUseHttp('http://localhost:4000/realms/x')).to.equal(true);
    expect(issuerMayUseHttp('http://idp.example.com')).to.equal(false);
    expect(issuerMayUseHttp('https://idp.example.com')).to.equal(false);
  });
});

describe('settings: OIDC_*', () => {
  it('are all unset by default, with the button label "single sign-on"', () => {
    expect(loadSettings({})).to.include({ oidcIssuer: null, oidcClientId: null, oidcClientSecret: null, oidcName: 'single sign-on' });
  });

  it('read issuer, client and label; the secret is optional (public client with PKCE)', () => {
    const env = { OIDC_ISSUER: 'https://idp.example.com/realms/acme', OIDC_CLIENT_ID: 'dashpub', OIDC_NAME: 'Acme' };
    expect(loadSettings(env)).to.include({ oidcIssuer: env.OIDC_ISSUER, oidcClientId: 'dashpub', oidcClientSecret: null, oidcName: 'Acme' });
    expect(loadSettings({ ...env, OIDC_CLIENT_SECRET: 's3cret' }).oidcClientSecret).to.equal('s3cret');
  });

  it('refuse a half or unsafe configuration at startup', () => {
    expect(() => loadSettings({ OIDC_ISSUER: 'https://idp.example.com' })).to.throw('OIDC_ISSUER is set but OIDC_CLIENT_ID is not');
    expect(() => loadSettings({ OIDC_CLIENT_ID: 'dashpub' })).to.throw('OIDC_ISSUER is not');
    expect(() => loadSettings({ OIDC_ISSUER: 'idp.example.com', OIDC_CLIENT_ID: 'x' })).to.throw('OIDC_ISSUER must be an absolute URL');
    expect(() => loadSettings({ OIDC_ISSUER: 'http://idp.example.com', OIDC_CLIENT_ID: 'x' })).to.throw('OIDC_ISSUER must use https');
    expect(loadSettings({ OIDC_ISSUER: 'http://127.0.0.1:9000', OIDC_CLIENT_ID: 'x' }).oidcIssuer).to.equal('http://127.0.0.1:9000');
  });
});
