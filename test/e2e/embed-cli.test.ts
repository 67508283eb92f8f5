import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { AdminAccounts } from '../../application/accounts/admin-accounts.js';
import { PublishDashboard } from '../../application/dashboards/publish-dashboard.js';
import { runDashpub, spawnDashpub } from '../support/cli.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { hostRequest } from '../support/hosting-http.js';
import { aPrincipal } from '../support/mothers.js';
import { startFullServer } from '../support/server.js';

const FIGURES = {
  title: 'Figures',
  queries: { q: { sql: 'SELECT 1 AS n WHERE :region IS NOT NULL OR :tags IS NOT NULL' } },
  params: [
    { id: 'region', type: 'select', default: 'North', options: ['North', 'South East'] },
    { id: 'tags', type: 'multi_select', default: ['x'], options: ['x', 'a&b=c', "é (x)!*'~"] },
  ],
  panels: [{ id: 'n', type: 'stat', query: 'q', value: 'n' }],
};

/** The README's embed snippet in `lang`, with a fixed expiry and parameters, printing its `src`. */
async function readmeSnippet(lang: 'js' | 'python', secret: string, exp: number, params: Array<[string, string]>): Promise<string> {
  const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Embedding a dashboard'));
  const code = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(section)![1]!.replace('/_embed/sales?', '/_embed/figures?');
  const given = JSON.stringify(params);
  if (lang === 'js') {
    const js = code.replace('Math.floor(Date.now() / 1000) + 3600', String(exp)).replace("[['region', 'South']]", given);
    return (await promisify(execFile)(process.execPath, ['--input-type=module', '-e', `${js}\nconsole.log(src);`], { env: { ...process.env, EMBED_SECRET: secret } })).stdout.trim();
  }
  const py = code.replace('int(time.time()) + 3600', String(exp)).replace('[("region", "South")]', given);
  return (await promisify(execFile)('python3', ['-c', `${py}\nprint(src)`], { env: { ...process.env, EMBED_SECRET: secret } })).stdout.trim();
}

/** `dashpub embed …` through runCli (once as the binary) against PostgreSQL, its URLs checked on the running server. */
describe('e2e: dashpub embed (PostgreSQL)', function () {
  this.timeout(90_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  let env: NodeJS.ProcessEnv;
  const dashpub = (args: string[]) => runDashpub(env, args);
  const ada = ['--owner', 'ada', '--slug', 'sales'];
  const fetchUrl = (url: string) => {
    const parsed = new URL(url);
    return hostRequest(server.port, parsed.host, parsed.pathname + parsed.search);
  };

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url, REDIS_URL: '' });
    env = { DATABASE_URL: database.url, REDIS_URL: '', DASHBOARD_DOMAIN: server.settings.dashboardDomain };
    const admin = server.server.app.container.get(AdminAccounts);
    const a = await admin.addUser({ handle: 'ada', email: 'ada@example.com' });
    await admin.addUser({ handle: 'bob', email: 'bob@example.com' });
    await admin.addWorkspace({ slug: 'acme', name: 'Acme' });
    const publish = server.server.app.container.get(PublishDashboard);
    await publish.execute(aPrincipal(a.id), { path: 'sales', body: '<!doctype html><title>Sales</title><p>Sales</p>' });
    await publish.execute(aPrincipal(a.id), { path: 'figures', spec: FIGURES, connection: 'self' });
  });

  after(async () => {
    await server?.close();
    await database?.drop();
  });

  it('turns embedding on, printing the new secret once, and shows the state without it', async () => {
    const on = await spawnDashpub(env, ['--json', 'embed', 'on', ...ada]);
    expect(on.code, on.stderr).to.equal(0);
    const answer = JSON.parse(on.stdout);
    expect(answer).to.include({ owner: 'ada', slug: 'sales', enabled: true });
    expect(answer.secret).to.match(/^[A-Za-z0-9_-]{43}$/);
    const again = JSON.parse((await dashpub(['--json', 'embed', 'on', ...ada])).stdout);
    expect(again.secret).to.equal(null);
    const shown = await dashpub(['embed', 'show', ...ada]);
    expect(shown.stdout).to.match(/^embedding of ada\/sales: on\nallowed origins: \(none: no site can frame it\)\nembed secret: made \d{4}-/);
    expect(shown.stdout + shown.stderr).to.not.contain(answer.secret);
  });

  it('adds and removes allowed origins, normalised, and refuses what is not an origin', async () => {
    const added = await dashpub(['--json', 'embed', 'allow', ...ada, '--origin', 'https://Intranet.Example.com/']);
    expect(added.code, added.stderr).to.equal(0);
    expect(JSON.parse(added.stdout).origins).to.deep.equal(['https://intranet.example.com']);
    await dashpub(['embed', 'allow', ...ada, '--origin', 'https://wiki.example.com:8443']);
    const removed = await dashpub(['--json', 'embed', 'allow', ...ada, '--origin', 'https://wiki.example.com:8443', '--remove']);
    expect(JSON.parse(removed.stdout).origins).to.deep.equal(['https://intranet.example.com']);
    const absent = await dashpub(['embed', 'allow', ...ada, '--origin', 'https://wiki.example.com:8443', '--remove']);
    expect([absent.code, absent.stderr.trim()]).to.deep.equal([1, 'error: https://wiki.example.com:8443 is not an allowed origin of this dashboard']);
    const injected = await dashpub(['embed', 'allow', ...ada, '--origin', "https://a.example; script-src 'unsafe-inline'"]);
    expect(injected.code).to.equal(1);
    expect(injected.stderr).to.contain('must be a scheme and host like https://example.com');
  });

  it('prints a signed URL the server serves for the listed origins, and refuses lifetimes over 30 days', async () => {
    const made = await dashpub(['--json', 'embed', 'url', ...ada, '--expires-in', '1d']);
    expect(made.code, made.stderr).to.equal(0);
    const { url, expires_at } = JSON.parse(made.stdout);
    expect(url).to.match(new RegExp(`^http://ada\\.${server.settings.dashboardDomain.replace(/\./g, '\\.')}/_embed/sales\\?exp=\\d+&sig=[0-9a-f]{64}$`));
    expect(Date.parse(expires_at) - Date.now()).to.be.within(86_400_000 - 120_000, 86_400_000);
    const res = await fetchUrl(url);
    expect([res.status, res.headers['content-security-policy']]).to.deep.equal([200, 'frame-ancestors https://intranet.example.com']);
    const long = await dashpub(['embed', 'url', ...ada, '--expires-in', '31d']);
    expect([long.code, long.stderr.trim()]).to.deep.equal([1, 'error: expiry must be at most 30 days ahead']);
    const shape = await dashpub(['embed', 'url', ...ada, '--expires-in', 'tomorrow']);
    expect([shape.code, shape.stderr.trim()]).to.deep.equal([1, 'error: --expires-in must be a whole number and a unit: 30m, 12h, 7d or 2w']);
  });

  it('rotates the secret: the old URL gets 404, the printed secret signs as the README says', async () => {
    const old = JSON.parse((await dashpub(['--json', 'embed', 'url', ...ada, '--expires-in', '2h'])).stdout).url as string;
    expect((await fetchUrl(old)).status).to.equal(200);
    const rotated = await dashpub(['embed', 'secret', '--rotate', '--owner', 'ada']);
    expect(rotated.code, rotated.stderr).to.equal(0);
    const secret = /embed secret \(shown once; keep it on your server\): (\S+)/.exec(rotated.stdout)![1]!;
    expect((await fetchUrl(old)).status).to.equal(404);
    const fresh = JSON.parse((await dashpub(['--json', 'embed', 'url', ...ada, '--expires-in', '2h'])).stdout).url as string;
    const path = /\/_embed\/sales\?exp=\d+/.exec(fresh)![0];
    expect(fresh.endsWith(`${path}&sig=${createHmac('sha256', secret).update(path).digest('hex')}`)).to.equal(true);
    expect((await fetchUrl(fresh)).status).to.equal(200);
  });

  it('turns embedding off: URLs stop working and no new one is made', async () => {
    const url = JSON.parse((await dashpub(['--json', 'embed', 'url', ...ada, '--expires-in', '2h'])).stdout).url as string;
    expect((await dashpub(['embed', 'off', ...ada])).code).to.equal(0);
    expect((await fetchUrl(url)).status).to.equal(404);
    const refused = await dashpub(['--json', 'embed', 'url', ...ada, '--expires-in', '1h']);
    expect([refused.code, JSON.parse(refused.stderr)]).to.deep.equal([1, { error: 'conflict', message: 'Embedding is off for this dashboard: turn it on first.' }]);
    await dashpub(['embed', 'on', ...ada]);
    expect((await fetchUrl(url)).status).to.equal(200);
  });

  it("answers another owner's name for a dashboard as it answers a missing one", async () => {
    const attempts = [
      ['url', '--owner', 'bob', '--slug', 'sales', '--expires-in', '1h'],
      ['allow', '--owner', 'bob', '--slug', 'sales', '--origin', 'https://evil.example'],
      ['on', '--workspace', 'acme', '--slug', 'sales'],
      ['url', '--owner', 'ada', '--slug', 'nope', '--expires-in', '1h'],
    ];
    for (const args of attempts) {
      const run = await dashpub(['embed', ...args]);
      expect([run.code, run.stderr.trim()], args.join(' ')).to.deep.equal([1, 'error: No such dashboard']);
    }
    const unknown = await dashpub(['embed', 'secret', '--rotate', '--owner', 'zed']);
    expect(unknown.stderr.trim()).to.equal('error: no user with handle "zed"');
    const both = await dashpub(['embed', 'show', '--owner', 'ada', '--workspace', 'acme', '--slug', 'sales']);
    expect(both.stderr.trim()).to.equal('error: pass exactly one of --owner <handle> or --workspace <slug>');
  });

  it('locks parameters with --param, in the URL the README snippets (Node and Python) make for the same values', async () => {
    const figures = ['--owner', 'ada', '--slug', 'figures'];
    expect((await dashpub(['embed', 'on', ...figures])).code).to.equal(0);
    const rotated = await dashpub(['embed', 'secret', '--rotate', '--owner', 'ada']);
    const secret = /embed secret \(shown once; keep it on your server\): (\S+)/.exec(rotated.stdout)![1]!;
    const params: Array<[string, string]> = [['tags', "é (x)!*'~"], ['region', 'South East'], ['tags', 'a&b=c']];
    const made = await dashpub(['--json', 'embed', 'url', ...figures, '--expires-in', '1h', ...params.flatMap(([k, v]) => ['--param', `${k}=${v}`])]);
    expect(made.code, made.stderr).to.equal(0);
    const url = JSON.parse(made.stdout).url as string;
    const signed = url.slice(url.indexOf('/_embed/'));
    const exp = Number(/exp=(\d+)/.exec(signed)![1]);
    expect(signed).to.match(/^\/_embed\/figures\?region=South%20East&tags=%C3%A9%20\(x\)!\*'~&tags=a%26b%3Dc&exp=\d+&sig=[0-9a-f]{64}$/);
    for (const lang of ['js', 'python'] as const) {
      const src = await readmeSnippet(lang, secret, exp, params);
      expect(src.slice(src.indexOf('/_embed/')), lang).to.equal(signed);
    }
    const res = await fetchUrl(url);
    expect([res.status, res.text.includes('<form')]).to.deep.equal([200, false]);
    const wrong = await dashpub(['embed', 'url', ...figures, '--expires-in', '1h', '--param', 'regoin=South']);
    expect([wrong.code, wrong.stderr.trim()]).to.deep.equal([1, 'error: figures has no parameter "regoin" (it has region, tags)']);
    const bare = await dashpub(['embed', 'url', ...figures, '--expires-in', '1h', '--param', 'region']);
    expect([bare.code, bare.stderr.trim()]).to.deep.equal([1, 'error: --param must be name=value (got "region")']);
  });
});
