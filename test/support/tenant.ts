import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { AccountsService } from '../../src/account/accounts.service';
import { SitesService } from '../../src/account/sites.service';
import { ApiKeysService } from '../../src/api-keys/api-keys.service';
import { startApp, StartAppOptions, TestApp } from './app';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type Api = Record<Method, (url: string) => request.Test>;

export interface Tenant {
  accountId: number;
  siteId: number;
  siteName: string;
  keyId: number;
  key: string;
  /** An agent that sends this tenant's key as x-api-key. */
  api: Api;
}

/** An agent with an optional x-api-key. */
export function agent(t: TestApp, key?: string): Api {
  const make = (method: Method) => (url: string) => {
    const req = request(t.server)[method](url);
    return key ? req.set('x-api-key', key) : req;
  };
  return { get: make('get'), post: make('post'), put: make('put'), patch: make('patch'), delete: make('delete') };
}

export function uniqueName(prefix = 't'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

/** A new account with one uniquely named site and an unrestricted key, made through the services. */
export async function createTenant(t: TestApp, options: { siteName?: string } = {}): Promise<Tenant> {
  const accounts = t.app.get(AccountsService);
  const sites = t.app.get(SitesService);
  const keys = t.app.get(ApiKeysService);
  return t.db.transaction(async (em) => {
    const account = await accounts.createAccount(em, 'Test account');
    const site = await sites.createInAccount(em, account.id, { name: options.siteName ?? uniqueName() });
    const { entity, plaintext } = await keys.createInAccount(em, account.id, {
      name: 'test key',
      siteIds: null,
      expiresAt: null,
    });
    return {
      accountId: account.id,
      siteId: site.id,
      siteName: site.name,
      keyId: entity.id,
      key: plaintext,
      api: agent(t, plaintext),
    };
  });
}

/**
 * The usual set-up of a test file: one app (with `options`) and `count` tenants, made before
 * the file's tests and closed after them. Read `ctx.t` and `ctx.tenants` inside tests or hooks.
 */
export function withTenants(count: number, options: StartAppOptions = {}): { t: TestApp; tenants: Tenant[] } {
  const ctx = { t: undefined as unknown as TestApp, tenants: [] as Tenant[] };
  beforeAll(async () => {
    ctx.t = await startApp(options);
    ctx.tenants = await Promise.all(Array.from({ length: count }, () => createTenant(ctx.t)));
  });
  afterAll(() => ctx.t?.close());
  return ctx;
}
