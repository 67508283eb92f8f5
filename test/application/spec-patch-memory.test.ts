import { expect } from 'chai';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { SpecPublisher } from '../../application/ports/spec-publisher.js';
import type { ToolRegistry } from '../../shells/koa/mcp/tool-registry.js';
import { testSettings } from '../support/settings.js';
import { json, makeUser, registry, text } from '../support/refresh-fixtures.js';

const SPEC = {
  title: 'Race',
  data: { d: [{ x: 'a', y: 1 }] },
  panels: [{ id: 'bars', type: 'bar', query: 'd', x: 'x', y: 'y' }],
};
const titleOf = async (tools: ToolRegistry, principal: Parameters<ToolRegistry['call']>[0], slug: string) =>
  json(await tools.call(principal, 'get_dashboard', { slug, summary: true })).summary.title as string;

/** publish_dashboard's patch through the tool registry on memory storage: what cannot be timed from outside. */
describe('publish_dashboard patch with memory storage: a version that moved on, and the publish rate limit', function () {
  this.timeout(60_000);
  let app: AppContainer;
  let tools: ToolRegistry;

  before(async () => {
    app = await buildContainer(testSettings(), { storage: 'memory' });
    tools = registry(app.container);
  });
  after(async () => app?.close());

  it('refuses a patch whose dashboard got a new version while it was applied, and keeps that version', async () => {
    const { principal } = await makeUser(app.container);
    expect((await tools.call(principal, 'publish_dashboard', { path: 'race', spec: SPEC })).isError).to.equal(undefined);
    const specs = app.container.get<SpecPublisher>(SpecPublisher);
    const original = specs.prepare;
    // Another publish lands between reading the current spec and writing the patched one.
    specs.prepare = async function (this: SpecPublisher, input) {
      specs.prepare = original;
      const prepared = await original.call(this, input);
      const other = await tools.call(principal, 'publish_dashboard', { path: 'race', spec: { ...SPEC, title: 'Other' } });
      expect(other.isError, text(other)).to.equal(undefined);
      return prepared;
    };
    try {
      const refused = await tools.call(principal, 'publish_dashboard', { path: 'race', patch: [{ op: 'set_title', title: 'Patched' }] });
      expect(refused.isError).to.equal(true);
      expect(text(refused)).to.equal('dashboard "race" got a new version while this patch was applied; read its summary again and resend the patch');
    } finally {
      specs.prepare = original;
    }
    expect(await titleOf(tools, principal, 'race')).to.equal('Other');
  });

  it('counts patches against publish_dashboard\'s limit of 60 a minute per user', async () => {
    const { principal } = await makeUser(app.container);
    expect((await tools.call(principal, 'publish_dashboard', { path: 'often', spec: SPEC })).isError).to.equal(undefined);
    for (let i = 1; i < 60; i++) {
      const r = await tools.call(principal, 'publish_dashboard', { path: 'often', patch: [{ op: 'set_title', title: `T${i}` }] });
      expect(r.isError, text(r)).to.equal(undefined);
    }
    const limited = await tools.call(principal, 'publish_dashboard', { path: 'often', patch: [{ op: 'set_title', title: 'one too many' }] });
    expect(text(limited)).to.equal('Rate limit exceeded for publish_dashboard: too many requests. Wait about 60 seconds and try again.');
    expect(await titleOf(tools, principal, 'often')).to.equal('T59');
  });
});
