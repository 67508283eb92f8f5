import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { ExportDashboards } from '../../application/dashboards/export-dashboards.js';
import { ImportDashboards } from '../../application/dashboards/import-dashboards.js';
import type { ArchiveManifest } from '../../domain/dashboard-archive.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { createUser, expectSameDashboards, publishFixtureDashboards, snapshotOwner, type DashboardSnapshot } from '../support/archive-fixtures.js';
import { testSettings } from '../support/settings.js';
import { refusal } from '../support/refusal.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('application: dashboard export and import (memory)', function () {
  this.timeout(60_000);
  let app: AppContainer;
  let manifest: ArchiveManifest;
  let original: Map<string, DashboardSnapshot>;
  const files = new Map<string, Uint8Array>();
  const source = (map: Map<string, Uint8Array>) => ({ read: async (sha: string) => map.get(sha) ?? null });
  const importer = () => app.container.get(ImportDashboards);

  before(async () => {
    app = await buildContainer(testSettings(), { storage: 'memory' });
    const ada = await createUser(app.container, 'ada');
    await publishFixtureDashboards(app.container, ada.id);
    original = await snapshotOwner(app.container, { kind: 'user', id: ada.id });
  });
  after(async () => app?.close());

  it('exports records and each distinct file once, reporting progress per dashboard', async () => {
    const progress: string[] = [];
    const saves: string[] = [];
    const summary = await app.container.get(ExportDashboards).execute(
      { owner: 'ada' },
      { save: async (sha, bytes) => void (saves.push(sha), files.set(sha, bytes)) },
      (done, total, slug) => progress.push(`${done}/${total} ${slug}`),
    );
    manifest = summary.manifest;
    expect(progress).to.deep.equal(['1/5 kpis', '2/5 live', '3/5 report', '4/5 sales', '5/5 secret']);
    expect(saves).to.have.length(new Set(saves).size).and.to.have.length(summary.files);
    for (const [sha, bytes] of files) expect(sha256(bytes)).to.equal(sha);
    expect(summary.versions).to.equal(7);
    const sales = manifest.dashboards.find((d) => d.slug === 'sales')!;
    expect(sales.versions.map((v) => v.name)).to.deep.equal([null, 'launch', null]);
    expect(manifest.dashboards.find((d) => d.slug === 'report')!.aliases).to.deep.equal(['old-report']);
  });

  it('imports for another owner, then skips every slug that now exists', async () => {
    const bob = await createUser(app.container, 'bob');
    const progress: number[] = [];
    const report = await importer().execute({ owner: 'bob' }, JSON.parse(JSON.stringify(manifest)), source(files), (done) => progress.push(done));
    expect(report).to.include({ imported: 5, skipped: 0, refused: 0 });
    expect(progress).to.deep.equal([1, 2, 3, 4, 5]);
    expectSameDashboards(await snapshotOwner(app.container, { kind: 'user', id: bob.id }), original);

    const again = await importer().execute({ owner: 'bob' }, manifest, source(files));
    expect(again).to.include({ imported: 0, skipped: 5 });
    expect(again.dashboards.every((d) => d.outcome === 'skipped' && d.reason === 'slug exists')).to.equal(true);
  });

  it('refuses a missing or corrupted file, or a bad manifest, before writing anything', async () => {
    const carol = await createUser(app.container, 'carol');
    const [firstSha] = files.keys();
    const missing = new Map(files);
    missing.delete(firstSha!);
    expect((await refusal(importer().execute({ owner: 'carol' }, manifest, source(missing)))).message).to.match(
      /^archive refused, nothing was imported: dashboard "[a-z-]+", version \d+, "[a-z.]+": file [0-9a-f]{64} is missing from the archive$/,
    );
    const tampered = new Map(files).set(firstSha!, new TextEncoder().encode('tampered'));
    expect((await refusal(importer().execute({ owner: 'carol' }, manifest, source(tampered)))).message).to.contain('is corrupted');
    const badSchedule = JSON.parse(JSON.stringify(manifest));
    badSchedule.dashboards.find((d: { slug: string }) => d.slug === 'live').refresh_schedule.cron = '* * *';
    expect((await refusal(importer().execute({ owner: 'carol' }, badSchedule, source(files)))).message).to.match(
      /^archive refused, nothing was imported: dashboard "live": refresh_schedule: schedule "\* \* \*" must have exactly 5 fields/,
    );
    expect((await snapshotOwner(app.container, { kind: 'user', id: carol.id })).size).to.equal(0);
    expect((await refusal(importer().execute({ owner: 'nobody' }, manifest, source(files)))).code).to.equal('not_found');
    expect((await refusal(importer().execute({}, manifest, source(files)))).message).to.equal('pass exactly one of --owner <handle> or --workspace <slug>');
  });
});
