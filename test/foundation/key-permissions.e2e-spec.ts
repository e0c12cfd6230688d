import request from 'supertest';
import { ApiKeysService } from '../../src/api-keys/api-keys.service';
import { Permission, PERMISSIONS, PUBLISHABLE_PERMISSIONS } from '../../src/common/auth/permissions';
import { startApp, TestApp } from '../support/app';
import { unlimitedBudgets } from '../support/budgets';
import { snapshotDatabase } from '../support/db-snapshot';
import { fakeDns } from '../support/dns';
import { tempMediaDir } from '../support/files';
import { exampleBody, loadOperations, OpenApiDocument, Operation } from '../support/openapi-operations';
import { expectOrFix } from '../support/matchers';
import { expectExactProblem } from '../support/problem';
import { operationUrl, ResourceFixtures, seedResources } from '../support/resource-fixtures';
import { declaredRoutes, DeclaredRoute } from '../support/route-handlers';
import { createTenant, Tenant } from '../support/tenant';
import { limitFor } from '../support/time-scale';

/**
 * Issue 34's matrix (docs/foundation.md, "Permissions"), over every operation of the live
 * document that a key may call: a key with exactly the operation's permission is let through; a
 * key with every permission but it, and a read-only key on a write, get 403
 * `insufficient_permission` naming it with the database unchanged; another account's key gets
 * the 404 it got before permissions. A publishable key is let through exactly where the document
 * says `x-sitebase-publishable` and refused everywhere else with nothing changed. Keys are made
 * once; refusals are sent side by side.
 */
const PERMISSION = 'x-sitebase-permission';
const PUBLISHABLE = 'x-sitebase-publishable';
const READS = PERMISSIONS.filter((p) => p.endsWith(':read'));

/** The permissions a replaced secret may not use (docs/foundation.md, "Rolling"): managing keys and the account. */
const MANAGING = new Set<Permission>(['api-keys:write', 'account:write']);

/**
 * The generator's proof (new-module.e2e-spec.ts) runs this file in a copy of the project with
 * a new module in it: there only the new module's paths are walked (every other path is walked
 * here, on the real tree, in the same run).
 */
const ONLY_PATHS = (process.env.PROOF_ONLY_PATHS ?? '').split(',').filter(Boolean);
const walked = (path: string) => ONLY_PATHS.length === 0 || ONLY_PATHS.some((p) => path.startsWith(p));
/** How many operations of a kind the walk must at least find: the document's, or the new module's. */
const atLeast = (whole: number) => (ONLY_PATHS.length === 0 ? whole : 1);

/** Operations on one key: a key may do them only to a key no stronger than itself. */
const ACTS_ON_A_KEY = new Set(['DELETE /api/v2/api-keys/{id}', 'POST /api/v2/api-keys/{id}/roll']);

/** Every permission but `p`: without `*`, and without the write that would include a read. */
function allBut(p: Permission): Permission[] {
  const write = p.endsWith(':read') ? p.replace(/:read$/, ':write') : null;
  return PERMISSIONS.filter((q) => q !== '*' && q !== p && q !== write);
}

describe('key permissions over every operation of the document', () => {
  const media = tempMediaDir('key-permissions');
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;
  let fixtures: ResourceFixtures;
  /** Each operation's handler and @Route, to name where its permission comes from. */
  let declared: Map<string, DeclaredRoute>;
  /** Key operations (a key is required) with the permission each needs. */
  let ops: Array<{ op: Operation; permission: Permission; publishable: boolean }>;
  /** Operations where a key is optional: a key without the permission reads as no key. */
  let optional: Array<{ op: Operation; permission: Permission; publishable: boolean }>;
  const exactly = new Map<Permission, string>();
  const without = new Map<Permission, string>();
  let readOnly = '';
  let publishable = '';
  /** A key with every permission, rolled: this is its replaced secret, in its grace. */
  let replaced = '';
  let sent = 0;

  beforeAll(
    async () => {
      t = await startApp({
        env: { MEDIA_LOCAL_DIR: media.dir, ...unlimitedBudgets() },
        extraModules: [fakeDns().module],
      });
      [tenant, other] = await Promise.all([createTenant(t), createTenant(t)]);
      const { doc, operations } = await loadOperations(t.server);
      fixtures = await seedResources(t, tenant);
      declared = declaredRoutes(t);
      const extension = (op: Operation, name: string) =>
        (doc as OpenApiDocument & { paths: Record<string, Record<string, Record<string, unknown>>> }).paths[op.path][
          op.method
        ][name];
      const withPermission = operations
        .filter((op) => !op.sessionOnly && walked(op.path))
        .map((op) => ({
          op,
          permission: extension(op, PERMISSION) as Permission | undefined,
          publishable: extension(op, PUBLISHABLE) === true,
        }))
        .filter(
          (x): x is { op: Operation; permission: Permission; publishable: boolean } => x.permission !== undefined,
        );
      ops = withPermission.filter((x) => !x.op.isPublic);
      optional = withPermission.filter((x) => x.op.isPublic);
      const needed = [...new Set(withPermission.map((x) => x.permission))];
      const keys = t.app.get(ApiKeysService);
      await t.db.transaction(async (em) => {
        const make = async (name: string, permissions: Permission[]) =>
          (await keys.createInAccount(em, tenant.accountId, { name, siteIds: null, permissions, expiresAt: null }))
            .plaintext;
        for (const p of needed) {
          exactly.set(p, await make(`exactly ${p}`, [p]));
          without.set(p, await make(`all but ${p}`, allBut(p)));
        }
        readOnly = await make('read-only', READS);
        publishable = (
          await keys.createInAccount(em, tenant.accountId, {
            name: 'publishable',
            kind: 'publishable',
            siteIds: null,
            permissions: [...PUBLISHABLE_PERMISSIONS],
            expiresAt: null,
          })
        ).plaintext;
      });
      const full = await keys.createInAccount(t.db.manager, tenant.accountId, {
        name: 'rolled',
        siteIds: null,
        expiresAt: null,
      });
      replaced = full.plaintext;
      await keys.rollInAccount(tenant.accountId, full.entity.id, 3600);
    },
    limitFor(60, 1_000, 120_000),
  );

  afterAll(async () => {
    const keys = exactly.size + without.size + 4;
    console.log(`key permissions: ${ops.length + optional.length} operations × ${keys} keys, ${sent} requests`);
    await t.close();
    media.remove();
  });

  const send = (op: Operation, key: string, body?: Record<string, unknown>, raw?: Record<string, string>) => {
    sent++;
    const req = request(t.server)
      [op.method](operationUrl(fixtures, op, raw))
      .set('x-api-key', key);
    return op.body === 'json' && op.schema ? req.send({ ...exampleBody(op.schema), ...body }) : req;
  };

  /** A key of the fixture's account holding only `permission`: one a key with it may revoke or roll. */
  const weakerKey = async (permission: Permission): Promise<number> => {
    const res = await fixtures.tenant.api.post('/api/v2/api-keys').send({ name: 'weaker', permissions: [permission] });
    if (res.status !== 201) throw new Error(`weaker key: ${res.status}`);
    return res.body.id as number;
  };

  /** Why a read marked for publishable keys must be of a PUBLISHABLE_PERMISSIONS group, and the fix. */
  const publishableWhy = (op: Operation, permission: Permission) =>
    `${op.label} is ${op.isPublic ? 'an optional-key route' : 'a key route marked publishable'} of group ` +
    `${permission}: a publishable key holds only PUBLISHABLE_PERMISSIONS (${PUBLISHABLE_PERMISSIONS.join(', ')}), ` +
    `so add \`${permission}\` to PUBLISHABLE_PERMISSIONS in src/common/auth/permissions.ts (every publishable ` +
    'key, existing ones included, then reads that group: docs/foundation.md, "Publishable keys"), or make the ' +
    "route `auth: 'key'` without `publishable`";

  /**
   * Where the permission the document states for `op` comes from (docs/foundation.md,
   * "Permissions"), and what to change if the route should need another.
   */
  const whyNeeds = (op: Operation, permission: Permission) => {
    const route = declared.get(op.label);
    const group = permission.split(':')[0];
    const from = !route?.options
      ? "its @Route's `permission`, or its controller's `permissions` group with its method, says so"
      : route.options.permission !== undefined
        ? `its @Route says \`permission: '${permission}'\``
        : `its controller's @ApiController(…, { permissions: '${group}' }) with ${op.method.toUpperCase()} makes it ` +
          "(the group's read for GET and HEAD, its write otherwise: defaultPermission in src/common/auth/permissions.ts)";
    return (
      `${route ? `${route.handler}, ` : ''}${op.label}, needs \`${permission}\`: ${from}. If it should need another, ` +
      "change its controller's `permissions` (a group of PERMISSION_GROUPS) or give its @Route a `permission`"
    );
  };

  const refusedFor = (permission: Permission) => (res: request.Response) =>
    expectExactProblem(
      res,
      403,
      'insufficient_permission',
      'Forbidden',
      `This key lacks the \`${permission}\` permission this route needs`,
    );

  it('declares a known permission on every key operation, and covers some of each kind', () => {
    expect(ops.length).toBeGreaterThan(atLeast(100));
    const unknown = [...ops, ...optional]
      .filter(({ permission }) => !PERMISSIONS.includes(permission))
      .map(
        ({ op, permission }) =>
          `${op.label} declares \`${permission}\`, which is no permission: add its group to PERMISSION_GROUPS ` +
          '(src/common/auth/permissions.ts), or fix the `permission` of its @Route',
      );
    expect(unknown).toEqual([]);
    expect([...ops, ...optional].some((x) => x.permission.endsWith(':read'))).toBe(true);
    expect(ops.some((x) => x.permission.endsWith(':write'))).toBe(true);
  });

  it(
    'a key with every permission but the one needed is refused, naming it, and nothing changes',
    async () => {
      const before = await snapshotDatabase(t.db);
      const answers = await Promise.all(ops.map(({ op, permission }) => send(op, without.get(permission)!)));
      answers.forEach((res, i) => {
        const { op, permission } = ops[i];
        const why =
          `${whyNeeds(op, permission)}. As declared, a key with every permission but \`${permission}\` must get ` +
          "403 insufficient_permission there: its @Route's auth must take a key ('key', 'account-key', 'session') " +
          'so AuthGuard checks the permission before the handler, and no other route may answer its path first';
        expect({ op: op.label, why, status: res.status, code: res.body?.code }).toEqual({
          op: op.label,
          why,
          status: 403,
          code: 'insufficient_permission',
        });
        refusedFor(permission)(res);
      });
      expect(await snapshotDatabase(t.db)).toEqual(before);
    },
    limitFor(200, 100),
  );

  it(
    'a read-only key is refused on every write, and nothing changes',
    async () => {
      const writes = ops.filter((x) => x.permission.endsWith(':write'));
      const before = await snapshotDatabase(t.db);
      const answers = await Promise.all(writes.map(({ op }) => send(op, readOnly)));
      answers.forEach((res, i) => {
        const why =
          `${whyNeeds(writes[i].op, writes[i].permission)}. A read-only key holds no :write, so it must get 403 ` +
          "there: the route's auth must take a key so AuthGuard checks it; a write that only reads (a search by " +
          "POST) says `permission: '<group>:read'` in its @Route";
        expect({ op: writes[i].op.label, why, status: res.status }).toEqual({
          op: writes[i].op.label,
          why,
          status: 403,
        });
        refusedFor(writes[i].permission)(res);
      });
      expect(await snapshotDatabase(t.db)).toEqual(before);
    },
    limitFor(200, 100),
  );

  it(
    'a publishable key is refused on every operation the document does not mark for it, and nothing changes',
    async () => {
      const others = ops.filter((x) => !x.publishable);
      expect(others.length).toBeGreaterThan(atLeast(100));
      const before = await snapshotDatabase(t.db);
      const answers = await Promise.all(others.map(({ op }) => send(op, publishable)));
      answers.forEach((res, i) => {
        const { op, permission } = others[i];
        const why =
          `the document does not mark ${op.label} x-sitebase-publishable (group ${permission}), so a publishable ` +
          'key must be refused there; if it should count, say `publishable: true` in its @Route ' +
          '(src/common/http/route.decorator.ts), which only a GET of a PUBLISHABLE_PERMISSIONS group may';
        expect({ op: op.label, why, status: res.status }).toEqual({ op: op.label, why, status: 403 });
        expectExactProblem(
          res,
          403,
          'insufficient_permission',
          'Forbidden',
          'A publishable key may only read published data and call the public routes: this route needs a ' +
            `secret key with the \`${permission}\` permission`,
        );
      });
      expect(await snapshotDatabase(t.db)).toEqual(before);
    },
    limitFor(200, 100),
  );

  it(
    'a replaced secret is refused on exactly the writes of api-keys and account (403 secret_replaced, nothing changes), and reads all its key may',
    async () => {
      const managing = ops.filter((x) => MANAGING.has(x.permission));
      expectOrFix(
        'These are the routes needing api-keys:write or account:write, which a replaced secret may not call ' +
          '(docs/foundation.md, "Rolling"). A route that manages keys or the account belongs in this list: add ' +
          'it here; any other route takes the `permissions` group of its own module (@ApiController), or its ' +
          "@Route's `permission`, instead",
        () =>
          expect(managing.map((x) => x.op.label).sort()).toEqual(
            [
              'DELETE /api/v2/account',
              'DELETE /api/v2/account/deletion',
              'DELETE /api/v2/api-keys/{id}',
              'POST /api/v2/api-keys',
              'POST /api/v2/api-keys/{id}/roll',
            ].filter((label) => walked(label.split(' ')[1])),
          ),
      );
      const before = await snapshotDatabase(t.db);
      const refused = await Promise.all(managing.map(({ op }) => send(op, replaced)));
      refused.forEach((res, i) => {
        expect({ op: managing[i].op.label, status: res.status, code: res.body?.code }).toEqual({
          op: managing[i].op.label,
          status: 403,
          code: 'secret_replaced',
        });
      });
      expect(await snapshotDatabase(t.db)).toEqual(before);

      const reads = [...ops, ...optional].filter((x) => x.op.method === 'get');
      const answers = await Promise.all(reads.map(({ op }) => send(op, replaced)));
      answers.forEach((res, i) =>
        expectOrFix(
          `${whyNeeds(reads[i].op, reads[i].permission)}. A replaced secret keeps every read of its key ` +
            `(it got ${res.status} ${res.body?.code ?? ''}): a GET must not need a current secret, which only writes ` +
            'of CURRENT_SECRET_GROUPS do (needsCurrentSecret, src/common/auth/permissions.ts); a GET that changes ' +
            'something names that write as its `permission`, and then it is no read',
          () =>
            expect({ op: reads[i].op.label, refused: [401, 403].includes(res.status) }).toEqual({
              op: reads[i].op.label,
              refused: false,
            }),
        ),
      );
    },
    limitFor(150, 100),
  );

  it(
    'a publishable key counts on every read the document marks for it',
    async () => {
      const reads = [...ops, ...optional].filter((x) => x.publishable && x.op.method === 'get');
      expect(reads.length).toBeGreaterThanOrEqual(atLeast(15));
      const notPublishable = reads
        .filter(({ permission }) => !PUBLISHABLE_PERMISSIONS.includes(permission))
        .map(({ op, permission }) => publishableWhy(op, permission));
      expect(notPublishable).toEqual([]);
      const answers = await Promise.all(reads.map(({ op }) => send(op, publishable)));
      // Where anyone may read, it sees exactly what anyone sees (a draft is a 404 to both).
      const anonymous = await Promise.all(
        reads.map(async ({ op }) => (op.isPublic ? request(t.server).get(operationUrl(fixtures, op)) : undefined)),
      );
      answers.forEach((res, i) => {
        const expected = anonymous[i] ? { status: anonymous[i].status, body: anonymous[i].body } : { status: 200 };
        const got = anonymous[i] ? { status: res.status, body: res.body } : { status: res.status };
        expectOrFix(
          `${reads[i].op.label} is marked x-sitebase-publishable, so a publishable key must ` +
            (anonymous[i]
              ? 'read there exactly what anyone reads (an optional-key route): the handler must treat it as no key'
              : 'read it (200): the route must only read published data of its PUBLISHABLE_PERMISSIONS group; ' +
                'if it cannot, drop `publishable` from its @Route') +
            '. A 404 here is a fixture the path lacks: test/support/resource-fixtures.ts',
          () =>
            expect({ op: reads[i].op.label, ...got }).toEqual({
              op: reads[i].op.label,
              ...expected,
              ...(anonymous[i]?.body?.requestId ? { body: { ...expected.body, requestId: res.body.requestId } } : {}),
            }),
        );
      });
      expect(answers.filter((res) => res.status === 200).length).toBeGreaterThanOrEqual(reads.length - 2);
    },
    limitFor(50, 100),
  );

  it(
    "another account's key gets the 404 it got before, on every operation that names a site or an id",
    async () => {
      const named = ops.filter(({ op }) => op.pathParams.length > 0);
      const before = await snapshotDatabase(t.db);
      const answers = await Promise.all(named.map(({ op }) => send(op, other.key)));
      const why =
        "another account's key must find nothing: the service must look the site and ids up in the caller's site " +
        '(@CurrentSite(), findInSiteOrFail)';
      answers.forEach((res, i) =>
        expect({ op: named[i].op.label, why, status: res.status }).toEqual({ op: named[i].op.label, why, status: 404 }),
      );
      expect(await snapshotDatabase(t.db)).toEqual(before);
    },
    limitFor(200, 100),
  );

  it(
    'on an operation where a key is optional, a key without the permission is never refused for it',
    async () => {
      const answers = await Promise.all(optional.map(({ op, permission }) => send(op, without.get(permission)!)));
      answers.forEach((res, i) =>
        expectOrFix(
          `${whyNeeds(optional[i].op, optional[i].permission)}. Its @Route says auth 'optional-key': a key ` +
            'without that permission reads as no key there (what anyone sees), never a 403; if the route must ' +
            "refuse such a key, make it auth 'key'",
          () =>
            expect({ op: optional[i].op.label, code: res.body?.code }).not.toEqual({
              op: optional[i].op.label,
              code: 'insufficient_permission',
            }),
        ),
      );
    },
    limitFor(50, 100),
  );

  // Last: these are let through and may change or delete what the others used (the account's
  // deletion, scheduled by its DELETE, goes at the very end).
  it(
    'a key with exactly the permission needed is let through',
    async () => {
      const ordered = [...ops].sort(
        (x, y) => Number(x.op.path === '/api/v2/account') - Number(y.op.path === '/api/v2/account'),
      );
      for (const { op, permission } of ordered) {
        // A key creates a key with no more than it has (no escalation): the example's would have all.
        const own = op.label === 'POST /api/v2/api-keys' ? { permissions: [permission] } : undefined;
        // … and revokes or rolls only a key that may do no more than itself (the fixture's spare has all).
        const target = ACTS_ON_A_KEY.has(op.label) ? { id: String(await weakerKey(permission)) } : undefined;
        const res = await send(op, exactly.get(permission)!, own, target);
        expectOrFix(
          `${whyNeeds(op, permission)}. A key holding exactly \`${permission}\` was refused: the handler or the ` +
            'service it calls asks for more than its @Route states (another permission, a session); state that in ' +
            'the @Route, or let the key through',
          () => {
            expect({ op: op.label, status: res.status, code: res.body?.code }).not.toEqual(
              expect.objectContaining({ code: 'insufficient_permission' }),
            );
            expect({ op: op.label, status: res.status }).not.toEqual({ op: op.label, status: 401 });
          },
        );
      }
    },
    limitFor(200, 150),
  );
});
