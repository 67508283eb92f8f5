import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { ManageEmbeds } from '../../../application/sharing/manage-embeds.js';
import type { SharingActor } from '../../../application/sharing/sharing-targets.js';
import { escapeHtml } from '../../../domain/html.js';
import { PARAM_FORM_START } from '../../../domain/param-values.js';
import type { RawResponse } from '../../support/hosting-http.js';
import { notices, paramSpec, paramWorld, statValues, type ParamWorld } from '../../support/param-fixtures.js';
import { refusal } from '../../support/refusal.js';

const HOUR = 3_600_000;
const DEFAULTS = ['350.5', '3'];
const SOUTH = ['245.25', '3'];
const SOUTH_DAY = ['95.25', '1'];

/**
 * Signed embeds that lock parameter values (issue 34), over HTTP against PostgreSQL: the signed values are
 * drawn and the form is gone; changing, adding or removing a value gives the plain 404, reordering does not.
 */
describe('e2e security: embeds lock parameters', function () {
  this.timeout(120_000);
  let world: ParamWorld;
  let manage: ManageEmbeds;
  let secret: string;
  let actor: SharingActor;

  const sign = (message: string) => createHmac('sha256', secret).update(message).digest('hex');
  const signed = async (slug: string, params: Array<[string, string]>) =>
    (await manage.signedUrl(actor, { ownerName: world.handle }, slug, HOUR, params)).pathAndQuery;
  /** The host's one 404 page, as for a dashboard that does not exist. */
  async function expectPlain404(res: RawResponse, what: string) {
    const missing = await world.get('/no-such-dashboard');
    expect([res.status, res.text], what).to.deep.equal([404, missing.text]);
  }

  before(async () => {
    world = await paramWorld({ paramRendersPerMinute: 1000 });
    await world.publish('sales', paramSpec());
    await world.publish('other', paramSpec('Other sales'));
    manage = world.app.container.get(ManageEmbeds);
    actor = { kind: 'person', userId: world.principal.userId };
    const on = await manage.configure(actor, { ownerName: world.handle }, 'sales', { enabled: true, origins: { replace: ['https://partner.example'] } });
    secret = on.secret!;
    await manage.configure(actor, { ownerName: world.handle }, 'other', { enabled: true, origins: { replace: ['https://partner.example'] } });
  });
  after(async () => world?.close());

  it('draws the signed values, signed in the canonical form the README describes, with no form to change them', async () => {
    const path = await signed('sales', [['region', 'south'], ['period', '2024-01-02..2024-01-02']]);
    const exp = /exp=(\d+)/.exec(path)![1];
    const message = `/_embed/sales?period=2024-01-02..2024-01-02&region=south&exp=${exp}`;
    expect(path).to.equal(`${message}&sig=${sign(message)}`);
    const res = await world.get(path);
    expect(res.status).to.equal(200);
    expect(statValues(res.text)).to.deep.equal(SOUTH_DAY);
    expect(res.text).not.to.contain(PARAM_FORM_START);
    expect(res.headers['cache-control']).to.equal('private, no-store');
  });

  it('accepts the parameters in any order, and the same value however it is percent-encoded', async () => {
    const path = await signed('sales', [['region', 'south'], ['min_amount', '90']]);
    const [, exp, sig] = /exp=(\d+)&sig=([0-9a-f]+)$/.exec(path)!;
    for (const reordered of [`sig=${sig}&region=south&exp=${exp}&min_amount=90`, `min_amount=9%30&exp=${exp}&sig=${sig}&region=%73outh`]) {
      const res = await world.get(`/_embed/sales?${reordered}`);
      expect([res.status, statValues(res.text)], reordered).to.deep.equal([200, SOUTH_DAY]);
    }
  });

  it('answers a changed, added, removed or duplicated value, or another dashboard\'s path, with the plain 404', async () => {
    const path = await signed('sales', [['region', 'south']]);
    const [, exp, sig] = /exp=(\d+)&sig=([0-9a-f]+)$/.exec(path)!;
    const tampered = {
      changed: `/_embed/sales?region=north&exp=${exp}&sig=${sig}`,
      'changed case': `/_embed/sales?region=South&exp=${exp}&sig=${sig}`,
      added: `/_embed/sales?region=south&min_amount=100&exp=${exp}&sig=${sig}`,
      'added theme': `/_embed/sales?region=south&theme=dark&exp=${exp}&sig=${sig}`,
      removed: `/_embed/sales?exp=${exp}&sig=${sig}`,
      duplicated: `/_embed/sales?region=south&region=south&exp=${exp}&sig=${sig}`,
      'range split': `/_embed/sales?region=south&period.from=2024-01-02&exp=${exp}&sig=${sig}`,
      'other dashboard': `/_embed/other?region=south&exp=${exp}&sig=${sig}`,
      injected: `/_embed/sales?region=${encodeURIComponent("south' OR 1=1 --")}&exp=${exp}&sig=${sig}`,
    };
    for (const [what, url] of Object.entries(tampered)) await expectPlain404(await world.get(url), what);
    expect(statValues((await world.get(path)).text)).to.deep.equal(SOUTH);
  });

  it('keeps the defaults for parameters not signed, and shows an invalid signed value as the defaults with the notice', async () => {
    const plain = await world.get(await signed('sales', []));
    expect([plain.status, statValues(plain.text), plain.text.includes(PARAM_FORM_START)]).to.deep.equal([200, DEFAULTS, false]);
    const wrong = await world.get(await signed('sales', [['region', "west' OR 1=1 --"]]));
    expect(statValues(wrong.text)).to.deep.equal(DEFAULTS);
    expect(notices(wrong.text)).to.deep.equal([escapeHtml('Region: "west\' OR 1=1 --" is not one of the options; showing the default')]);
  });

  it('pins a signed theme (a viewer cannot add one: see the added theme above)', async () => {
    const dark = await world.get(await signed('sales', [['region', 'south'], ['theme', 'dark']]));
    expect(dark.text).to.contain('data-theme="dark"');
    expect(statValues(dark.text)).to.deep.equal(SOUTH);
  });

  it('refuses to sign a name the spec does not declare, naming it', async () => {
    const error = await refusal(signed('sales', [['regoin', 'south']]));
    expect([error.code, error.message]).to.deep.equal(['invalid_argument', 'sales has no parameter "regoin" (it has region, period, min_amount)']);
    expect(await signed('sales', [['period.from', '2024-01-02'], ['period.to', '2024-01-02']])).to.match(/^\/_embed\/sales\?period\.from=2024-01-02&period\.to=2024-01-02&exp=/);
  });
});
