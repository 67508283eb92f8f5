import { expect } from 'chai';
import { clearingCookies, isDuplicated, readCookie } from '../../shells/koa/dashboards/viewer-cookies.js';
import { plainHttpExposure } from '../../shells/plain-http-warning.js';
import { isTopLevelNavigation } from '../../shells/koa/dashboards/dashboards-surface.js';

describe('shells: cookies of one name sent twice', () => {
  it('reads neither of two cookies of one name', () => {
    expect(readCookie('a=1; dashpub_session=x', 'dashpub_session')).to.equal('x');
    expect(readCookie('dashpub_session=planted; a=1; dashpub_session=ours', 'dashpub_session')).to.equal(null);
    expect(isDuplicated('dashpub_session=planted; dashpub_session=ours', 'dashpub_session')).to.equal(true);
    expect(isDuplicated('dashpub_session=ours; dashpub_sessions=x', 'dashpub_session')).to.equal(false);
  });

  it('expires every copy a parent Domain and a path prefix could hold, and only the own copy of a __Host- cookie', () => {
    const cleared = clearingCookies('dashpub_viewer', 'acme.dash.example.test:8080', '/plans/data.js', false);
    expect(cleared).to.include('dashpub_viewer=; Path=/; Max-Age=0');
    expect(cleared).to.include('dashpub_viewer=; Path=/plans; Max-Age=0; Domain=dash.example.test');
    expect(cleared).to.include('dashpub_viewer=; Path=/plans/; Max-Age=0; Domain=example.test');
    expect(cleared.some((c) => c.includes('Domain=test;'))).to.equal(false);
    expect(clearingCookies('dashpub_session', '127.0.0.1:3000', '/account', false)).to.deep.equal([
      'dashpub_session=; Path=/; Max-Age=0',
      'dashpub_session=; Path=/account; Max-Age=0',
    ]);
    expect(clearingCookies('x', 'a.b.c', '/p;Domain=evil/q', false).every((c) => !c.includes('evil'))).to.equal(true);
    expect(clearingCookies('__Host-dashpub_session', 'app.example.test', '/account', true)).to.deep.equal(['__Host-dashpub_session=; Path=/; Max-Age=0; HttpOnly; Secure']);
  });

  it('starts a sign-in only for a top-level navigation', () => {
    expect(isTopLevelNavigation('GET', { mode: 'navigate', dest: 'document' })).to.equal(true);
    expect(isTopLevelNavigation('GET', { mode: 'navigate', dest: 'iframe' })).to.equal(false);
    expect(isTopLevelNavigation('GET', { mode: 'no-cors', dest: 'script', accept: 'text/html' })).to.equal(false);
    expect(isTopLevelNavigation('GET', { accept: 'text/html,application/xhtml+xml' })).to.equal(true);
    expect(isTopLevelNavigation('GET', { accept: '*/*' })).to.equal(false);
    expect(isTopLevelNavigation('HEAD', { accept: 'text/html' })).to.equal(false);
  });

  it('warns about plain http only off loopback', () => {
    const local = { baseUrl: 'http://localhost:3000', appUrl: 'http://app.localhost:3000', dashboardScheme: 'http', dashboardDomain: 'dash.localhost:3000' };
    expect(plainHttpExposure(local)).to.equal(null);
    expect(plainHttpExposure({ ...local, appUrl: 'https://app.example.test' })).to.equal(null);
    expect(plainHttpExposure({ ...local, dashboardDomain: 'dash.example.test' })).to.match(/^served over plain http on a non-loopback address \(DASHBOARD_DOMAIN\)/);
  });
});
