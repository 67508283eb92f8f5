import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { ManageConnections } from '../../application/connections/manage-connections.js';
import type { DomainError } from '../../domain/errors.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { makeUser } from '../support/refresh-fixtures.js';
import { testSettings } from '../support/settings.js';

/**
 * The audit's case: the embedded database listens on loopback without a password, so with private
 * networks allowed a warehouse URL naming it would read every account. It is refused on any database
 * name, since PGlite answers with its one database whatever name is asked.
 */
describe('warehouse address policy on the embedded database', function () {
  this.timeout(120_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'dashpub-embedded-wh-'));
  let app: AppContainer;

  before(async () => {
    app = await buildContainer(testSettings({ dataDir, allowPrivateWarehouses: true }), { role: 'server', refreshWorkers: false });
  });
  after(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("refuses the embedded database's own URL and any other name on its port", async () => {
    const url = new URL((app.container.get(DataSource).options as { url: string }).url);
    expect(url.hostname).to.equal('127.0.0.1');
    const { user } = await makeUser(app.container, 'pro');
    for (const candidate of [url.toString(), `postgres://reader@localhost:${url.port}/anything`]) {
      const err = await app.container
        .get(ManageConnections)
        .create({ ownerUserId: user.id, workspaceId: null, label: 'Sneaky', url: candidate })
        .then(() => null, (e: unknown) => e as DomainError);
      expect(err?.code, candidate).to.equal('forbidden');
      expect(err?.message).to.equal("That URL leads to this service's own database server; add your warehouse, on a server of its own, instead.");
    }
    expect(await app.container.get(ManageConnections).listForUser(user.id)).to.deep.equal([]);
  });
});
