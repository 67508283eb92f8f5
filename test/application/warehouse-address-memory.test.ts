import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ManageConnections } from '../../application/connections/manage-connections.js';
import { PolicedWarehouse } from '../../application/connections/policed-warehouse.js';
import type { WarehouseAddressPolicy } from '../../application/ports/warehouse-address-policy.js';
import { ConnectionStore } from '../../application/ports/connection-store.js';
import type { SqlTarget, Warehouse } from '../../application/ports/warehouse.js';
import { DomainError } from '../../domain/errors.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { makeUser } from '../support/refresh-fixtures.js';
import { testSettings } from '../support/settings.js';

const PRIVATE = (host: string) =>
  `The warehouse host "${host}" is on a private network; this service only connects to public warehouses. ` +
  'Its operator can allow private networks with ALLOW_PRIVATE_WAREHOUSES=true.';

describe('warehouse address policy in the use cases (memory storage, ALLOW_PRIVATE_WAREHOUSES off)', function () {
  this.timeout(30_000);
  let app: AppContainer;
  before(async () => {
    app = await buildContainer(testSettings({ allowPrivateWarehouses: false }), { storage: 'memory' });
  });
  after(async () => app?.close());

  const manage = () => app.container.get(ManageConnections);
  const store = () => app.container.get<ConnectionStore>(ConnectionStore);

  it('refuses to add a private host with the operator hint and stores nothing', async () => {
    const { user } = await makeUser(app.container, 'pro');
    const before = (await store().listAll()).length;
    let refused: unknown;
    try {
      await manage().create({ ownerUserId: user.id, workspaceId: null, label: 'Internal', url: 'postgres://reader:pw@10.0.0.5:5432/sales' });
    } catch (err) {
      refused = err;
    }
    expect(refused).to.be.instanceOf(DomainError);
    expect((refused as DomainError).code).to.equal('forbidden');
    expect((refused as DomainError).message).to.equal(PRIVATE('10.0.0.5'));
    expect(await store().listAll()).to.have.length(before);
  });

  it('refuses a name the system resolver maps to loopback', async () => {
    const { user } = await makeUser(app.container, 'pro');
    const err = await manage()
      .create({ ownerUserId: user.id, workspaceId: null, label: 'Local', url: 'postgres://u@localhost/db' })
      .then(() => null, (e: unknown) => e as DomainError);
    expect(err?.message).to.match(/^The warehouse host "localhost" resolves to (127\.0\.0\.1|::1), which is on a private network;/);
  });

  it('checks the plan before the address, so a free account hears about the plan', async () => {
    const { user } = await makeUser(app.container, 'free');
    const err = await manage()
      .create({ ownerUserId: user.id, workspaceId: null, label: 'X', url: 'postgres://u@10.0.0.5/db' })
      .then(() => null, (e: unknown) => e as DomainError);
    expect(err?.code).to.equal('plan_required');
  });

  it('refuses at use time too: a stored private URL fails its test with the reason recorded', async () => {
    const { user } = await makeUser(app.container, 'pro');
    const id = randomUUID();
    // As if added while private networks were allowed (or while its DNS still answered a public address).
    await store().insert({
      id, ownerUserId: user.id, workspaceId: null, label: 'Old', kind: 'postgres', url: 'postgres://u@192.168.1.20/db',
      status: 'active', lastTestedAt: null, lastError: null, createdAt: new Date(),
    });
    const tested = await manage().test(id);
    expect(tested).to.include({ status: 'failing', lastError: PRIVATE('192.168.1.20') });
  });
});

describe('PolicedWarehouse', () => {
  const calls: string[] = [];
  const inner: Warehouse = {
    open: (url): SqlTarget => ({
      run: async () => (calls.push(`run ${url}`), { columns: [], rows: [], truncated: false }),
      explain: async () => void calls.push(`explain ${url}`),
      introspect: async () => (calls.push(`introspect ${url}`), []),
    }),
    test: async (url) => void calls.push(`test ${url}`),
  };
  const policy: WarehouseAddressPolicy = {
    check: async (url) => {
      if (url.includes('10.')) throw new DomainError('forbidden', `no: ${url}`);
    },
  };
  const warehouse = new PolicedWarehouse(inner, policy);
  beforeEach(() => (calls.length = 0));

  it('asks the policy before every connection and never connects when refused', async () => {
    const target = warehouse.open('postgres://u@10.0.0.1/db');
    for (const attempt of [target.run('SELECT 1'), target.explain('SELECT 1'), target.introspect(), warehouse.test('postgres://u@10.0.0.1/db')]) {
      const err = await attempt.then(() => null, (e: unknown) => e as DomainError);
      expect(err?.message).to.equal('no: postgres://u@10.0.0.1/db');
    }
    expect(calls).to.deep.equal([]);
  });

  it('passes through when allowed', async () => {
    const target = warehouse.open('postgres://u@db.example.com/db');
    await target.run('SELECT 1');
    await target.explain('SELECT 1');
    await target.introspect();
    await warehouse.test('postgres://u@db.example.com/db');
    expect(calls.map((c) => c.split(' ')[0])).to.deep.equal(['run', 'explain', 'introspect', 'test']);
  });
});
