import { ApiKeysService } from '../../src/api-keys/api-keys.service';
import { PUBLISHABLE_PERMISSIONS } from '../../src/common/auth/permissions';
import { ApiKeyEntity } from '../../src/api-keys/entities/api-key.entity';
import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { startApp, TestApp } from '../support/app';
import { workerDatabaseUrl } from '../support/databases';
import { runEntry } from '../support/entry';
import { agent, createTenant, Tenant } from '../support/tenant';

/**
 * Issue 31, row 4: a lost key is replaced with `npm run key -- create --site <name>` (src/cli/key.ts),
 * against the database the server uses. The command runs here as its own process on this
 * worker's database; the key it prints is then used with an app over the same database.
 */
describe('npm run key', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTenant(t);
  });
  afterAll(() => t.close());

  const key = (...args: string[]) =>
    runEntry('src/cli/key.ts', args, { DATABASE_URL: workerDatabaseUrl(), LOG_LEVEL: 'info' });
  const row = (id: number) => t.db.getRepository(ApiKeyEntity).findOneByOrFail({ id });

  it('create: prints a new key once, alone on stdout; it reaches every site of the account', async () => {
    const run = await key('create', '--site', tenant.siteName, '--name', 'Recovered');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^sb_live_[A-Za-z0-9]{40}\n$/);
    const plaintext = run.stdout.trim();
    const id = Number(
      /^Created key (\d+) "Recovered", reaching every site of the account: may do everything\. It is shown once/.exec(
        run.stderr,
      )?.[1],
    );
    expect(run.stderr).not.toContain(plaintext);

    expect(await row(id)).toEqual(
      expect.objectContaining({
        accountId: tenant.accountId,
        name: 'Recovered',
        siteIds: null,
        prefix: plaintext.slice(0, 12),
        revokedAt: null,
      }),
    );
    const events = await t.db
      .getRepository(OutboxEventEntity)
      .findBy({ accountId: tenant.accountId, name: 'api_key.created' });
    expect(events.map((e) => e.payload)).toContainEqual({ id, name: 'Recovered', kind: 'secret' });

    const api = agent(t, plaintext);
    const content = await api.get(`/api/v2/sites/${tenant.siteName}/content`);
    expect(content.status).toBe(200);
    const keys = await api.get('/api/v2/api-keys');
    expect(keys.status).toBe(200);
    expect((keys.body as { data: Array<{ id: number }> }).data.map((k) => k.id)).toContain(id);
  }, 60_000);

  it('create --only-site: a key of that site alone (account routes refuse it)', async () => {
    const run = await key('create', '--site', tenant.siteName, '--only-site');
    expect(run.code).toBe(0);
    const plaintext = run.stdout.trim();
    const id = Number(/^Created key (\d+) /.exec(run.stderr)?.[1]);
    expect((await row(id)).siteIds).toEqual([tenant.siteId]);
    const api = agent(t, plaintext);
    expect((await api.get(`/api/v2/sites/${tenant.siteName}/content`)).status).toBe(200);
    expect((await api.get('/api/v2/api-keys')).status).toBe(403);
  }, 60_000);

  it('list: ids, names, the first and last characters, reach, permissions and a previous secret, never a secret', async () => {
    const keys = t.app.get(ApiKeysService);
    const limited = await t.db.transaction((em) =>
      keys.createInAccount(em, tenant.accountId, {
        name: 'Reader',
        siteIds: [tenant.siteId],
        permissions: ['content:read', 'media:read'],
        expiresAt: null,
      }),
    );
    const rolled = await keys.rollInAccount(tenant.accountId, limited.entity.id, 3600);
    const browser = await t.db.transaction((em) =>
      keys.createInAccount(em, tenant.accountId, {
        name: 'Shop',
        kind: 'publishable',
        siteIds: null,
        permissions: null,
        allowedOrigins: ['https://shop.example'],
        expiresAt: null,
      }),
    );
    const run = await key('list', '--site', tenant.siteName);
    expect(run.code).toBe(0);
    const k = tenant.key;
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^${tenant.keyId}  "test key"  ${k.slice(0, 12)}…${k.slice(-4)}  every site of the account  may do everything  created \\S+  `,
      ),
    );
    const old = limited.plaintext;
    const next = rolled.plaintext;
    expect(lines.find((l) => l.startsWith(`${limited.entity.id}  `))).toBe(
      [
        limited.entity.id,
        '"Reader"',
        `${next.slice(0, 12)}…${next.slice(-4)}`,
        `site "${tenant.siteName}" only`,
        'may content:read media:read',
        `created ${limited.entity.createdAt.toISOString()}`,
        'never used',
        `previous secret ${old.slice(0, 12)}…${old.slice(-4)} works until ${rolled.entity.previousExpiresAt!.toISOString()} (never used)`,
      ].join('  '),
    );
    expect(lines.find((l) => l.startsWith(`${browser.entity.id}  `))).toContain('"Shop"  sb_pub_');
    expect(lines.find((l) => l.startsWith(`${browser.entity.id}  `))).toContain(
      'every site of the account  publishable, from https://shop.example  created',
    );
    for (const secret of [k, old, next, browser.plaintext]) expect(run.stdout).not.toContain(secret);
  }, 60_000);

  it('revoke: the key stops working at once', async () => {
    const { entity, plaintext } = await t.db.transaction((em) =>
      t.app
        .get(ApiKeysService)
        .createInAccount(em, tenant.accountId, { name: 'Short-lived', siteIds: null, expiresAt: null }),
    );
    expect((await agent(t, plaintext).get('/api/v2/api-keys')).status).toBe(200);

    const run = await key('revoke', String(entity.id), '--site', tenant.siteName);
    expect([run.code, run.stderr]).toEqual([0, `Revoked key ${entity.id}.\n`]);
    expect((await row(entity.id)).revokedAt).toBeInstanceOf(Date);
    expect((await agent(t, plaintext).get('/api/v2/api-keys')).status).toBe(401);
  }, 60_000);

  it('a site that does not exist: one clear line, exit 1, nothing made', async () => {
    const before = await t.db.getRepository(ApiKeyEntity).count();
    const run = await key('create', '--site', 'no-such-site-31');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^There is no site "no-such-site-31" in the database at [^ ]+\. Sites are made by /);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(await t.db.getRepository(ApiKeyEntity).count()).toBe(before);
  }, 60_000);

  it('a command without --site, or an unknown one: the usage', async () => {
    const run = await key('create');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^create needs --site <site name>\.\nUsage: npm run key -- <command> --site <site name>\n/,
    );
    const unknown = await key('mint', '--site', tenant.siteName);
    expect([unknown.code, unknown.stderr.split('\n')[0]]).toEqual([1, 'Unknown command "mint".']);
  }, 60_000);

  /**
   * Issue 47, row 6: create covers what POST /api/v2/api-keys can make (permissions, expiry, the
   * publishable kind with its origins and rate, one site), under the API's own rules (its DTO
   * and service), each wrong option said in one line.
   */
  it('create --permissions --expires: a limited key that ends', async () => {
    const until = new Date(Date.now() + 86_400_000).toISOString();
    const run = await key(
      'create',
      '--site',
      tenant.siteName,
      '--permissions',
      'media:read,content:read',
      '--expires',
      until,
    );
    expect(run.code).toBe(0);
    const id = Number(/^Created key (\d+) /.exec(run.stderr)?.[1]);
    expect(run.stderr).toBe(
      `Created key ${id} "Key made with npm run key", reaching every site of the account: may content:read media:read, until ${until}. It is shown once, here; keep it:\n`,
    );
    expect(await row(id)).toEqual(
      expect.objectContaining({
        kind: 'secret',
        siteIds: null,
        permissions: ['content:read', 'media:read'],
        expiresAt: new Date(until),
      }),
    );
    const api = agent(t, run.stdout.trim());
    expect((await api.get(`/api/v2/sites/${tenant.siteName}/content`)).status).toBe(200);
    expect((await api.get('/api/v2/api-keys')).status).toBe(403);
  }, 60_000);

  it('create --publishable --origins --rate-limit --only-site: a browser key of one site', async () => {
    const run = await key(
      'create',
      '--site',
      tenant.siteName,
      '--name',
      'Shop front',
      '--publishable',
      '--origins',
      'https://shop.example,https://www.shop.example',
      '--rate-limit',
      '600',
      '--only-site',
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^sb_pub_[A-Za-z0-9]+\n$/);
    const id = Number(/^Created key (\d+) /.exec(run.stderr)?.[1]);
    expect(run.stderr).toContain(
      `"Shop front", reaching site "${tenant.siteName}" only: publishable, from https://shop.example https://www.shop.example.`,
    );
    expect(await row(id)).toEqual(
      expect.objectContaining({
        kind: 'publishable',
        siteIds: [tenant.siteId],
        permissions: [...PUBLISHABLE_PERMISSIONS],
        allowedOrigins: ['https://shop.example', 'https://www.shop.example'],
        rateLimitPerMinute: 600,
        expiresAt: null,
      }),
    );
  }, 60_000);

  it("wrong values: the API's rules, said of the options in one line, nothing made", async () => {
    const before = await t.db.getRepository(ApiKeyEntity).count();
    const [fields, kind] = await Promise.all([
      key('create', '--site', tenant.siteName, '--permissions', 'content:reed', '--expires', '2020-01-01T00:00:00Z'),
      key('create', '--site', tenant.siteName, '--publishable', '--permissions', 'content:read'),
    ]);
    expect([fields.code, fields.stdout, fields.stderr]).toEqual([
      1,
      '',
      expect.stringMatching(
        /^--permissions each value must be one of the following values: \*, content:read, [^;]+; --expires must be in the future\.\n$/,
      ),
    ]);
    expect([kind.code, kind.stdout, kind.stderr]).toEqual([
      1,
      '',
      '--permissions is fixed for a publishable key (the published reads): leave it out.\n',
    ]);
    expect(await t.db.getRepository(ApiKeyEntity).count()).toBe(before);
  }, 60_000);

  it("an unknown option, or one of another command: one line naming it, then the usage (not Node's parser's text)", async () => {
    const [unknown, misplaced, empty] = await Promise.all([
      key('create', '--site', tenant.siteName, '--perms', 'content:read'),
      key('list', '--site', tenant.siteName, '--expires', '2030-01-01T00:00:00Z'),
      key('create', '--site', tenant.siteName, '--permissions'),
    ]);
    for (const [run, line] of [
      [unknown, 'Unknown option "--perms".'],
      [misplaced, '--expires is an option of create, not of list.'],
      [empty, '--permissions needs a value.'],
    ] as const) {
      expect([run.code, run.stdout]).toEqual([1, '']);
      expect(run.stderr.split('\n').slice(0, 2)).toEqual([line, 'Usage: npm run key -- <command> --site <site name>']);
    }
  }, 60_000);
});
