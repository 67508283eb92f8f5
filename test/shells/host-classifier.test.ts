import { expect } from 'chai';
import { hostClassifier } from '../../shells/koa/host-router.js';

/**
 * The classifier keeps its last answer for the next request with the same Host header (keep-alive clients
 * repeat theirs); a different header, in any order, must never get the kept answer.
 */
describe('shells: the Host header classifier', () => {
  it('answers each header on its own, whatever came before', () => {
    const classify = hostClassifier({ appUrl: 'https://app.dashpub.test', baseUrl: 'https://api.dashpub.test', dashboardDomain: 'dash.test' });
    const cases: Array<[string | undefined, object]> = [
      ['ada.dash.test', { surface: 'dashboards', subdomain: 'ada' }],
      ['ada.dash.test', { surface: 'dashboards', subdomain: 'ada' }],
      ['bob.dash.test', { surface: 'dashboards', subdomain: 'bob' }],
      ['APP.dashpub.test', { surface: 'app' }],
      ['ada.dash.test', { surface: 'dashboards', subdomain: 'ada' }],
      [undefined, { surface: 'api' }],
      ['ada.dash.test', { surface: 'dashboards', subdomain: 'ada' }],
      ['a_b.dash.test', { surface: 'api' }],
      ['api.dashpub.test', { surface: 'api' }],
      ['Ada.Dash.Test', { surface: 'dashboards', subdomain: 'ada' }],
      ['10.0.0.1', { surface: 'api' }],
      ['app.dashpub.test', { surface: 'app' }],
    ];
    for (const [header, expected] of cases) expect(classify(header), String(header)).to.deep.equal(expected);
  });
});
