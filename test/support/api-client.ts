import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import type { Client, Middleware } from 'openapi-fetch';
import request from 'supertest';
import { createSitebaseFor } from '../../clients/typescript/src/client';
import type { paths } from '../generated/openapi';
import type { StartAppOptions, TestApp } from './app';
import { DocumentValidators, validatorsOf } from './document-validators';
import { Tenant, withTenants } from './tenant';

/**
 * A client generated from the live OpenAPI document, as integrators make theirs: types from
 * `openapi-typescript` (test/generated/openapi.d.ts, checked by tsc) and calls through the
 * repository's SDK (clients/typescript: openapi-fetch with key or session auth and an
 * Idempotency-Key on every POST), in its raw shape that answers problems as `{ error }`, and
 * with its retries off, so each check sees the server's first answer. Every answer is also checked at run time against the schema the document
 * gives for its status, with undocumented fields refused, and every call is counted, so a
 * client test can require that it called each operation of its groups.
 */
export type SitebaseClient = Client<paths>;

interface DocOperation {
  tags?: string[];
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}
export interface LiveDocument {
  paths: Record<string, Record<string, DocOperation>>;
  components: Record<string, unknown>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export class ContractClient {
  readonly called = new Set<string>();
  private readonly validators: DocumentValidators;

  private constructor(
    readonly doc: LiveDocument,
    readonly baseUrl: string,
  ) {
    this.validators = validatorsOf(doc);
  }

  /** Listens on 127.0.0.1 (an ephemeral port) and reads the document the app serves. */
  static async start(t: TestApp): Promise<ContractClient> {
    if (!t.server.listening) await t.app.listen(0, '127.0.0.1');
    const { port } = t.server.address() as AddressInfo;
    const doc = (await request(t.server).get('/docs/openapi.json').expect(200)).body as LiveDocument;
    return new ContractClient(doc, `http://127.0.0.1:${port}`);
  }

  /** A typed client sending `key` as x-api-key (none: anonymous). */
  as(key?: string): SitebaseClient {
    return this.sdk({ apiKey: key });
  }

  /** A typed client sending a site user's session as `Authorization: Bearer`. */
  asSession(token: string): SitebaseClient {
    return this.sdk({ session: token });
  }

  private sdk(auth: { apiKey?: string; session?: string }): SitebaseClient {
    const sb = createSitebaseFor<paths>({ baseUrl: this.baseUrl, ...auth, retry: { retries: 0 } });
    sb.use(this.middleware());
    return sb.raw;
  }

  /**
   * `METHOD /path (operationId)` of every operation of these tags that no test has called yet,
   * each with how to call it: what a client test's `expect(s.contract.uncalled([...])).toEqual([])` shows.
   */
  uncalled(tags: string[]): string[] {
    const spec = expect.getState().testPath;
    const file = spec ? relative(join(__dirname, '..', '..'), spec) : 'test/<module>/<module>.client.e2e-spec.ts';
    return Object.entries(this.doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]?.tags?.some((tag) => tags.includes(tag)) && !this.called.has(`${m} ${path}`)).map(
        (m) =>
          `${m.toUpperCase()} ${path} (${item[m].operationId}): not called through the client: call it in ` +
          `${file} (e.g. s.api.${m.toUpperCase()}('${path}', { params: … })); if the client's types lack it, run ` +
          '`npm run openapi:client` first',
      ),
    );
  }

  private middleware(): Middleware {
    return {
      onResponse: async ({ request: req, response, schemaPath }) => {
        const method = req.method.toLowerCase();
        const operation = this.doc.paths[schemaPath]?.[method];
        if (!operation) throw new Error(`${req.method} ${schemaPath} is not in the document`);
        this.called.add(`${method} ${schemaPath}`);
        const status = String(response.status);
        const documented = operation.responses[status];
        if (!documented) {
          throw new Error(`${operation.operationId} answered ${status}, which the document does not list`);
        }
        const type = (response.headers.get('content-type') ?? '').split(';')[0];
        if (!documented.content) {
          if (response.body && (await response.clone().text()) !== '') {
            throw new Error(`${operation.operationId} ${status}: a body the document does not describe`);
          }
          return undefined;
        }
        if (!documented.content[type]) {
          throw new Error(
            `${operation.operationId} ${status}: content-type ${type}, documented ${Object.keys(documented.content).join(', ')}`,
          );
        }
        // An image (the newsletter's open pixel) is bytes: its type is what is checked.
        if (type.startsWith('image/')) return undefined;
        const validate = this.validators.response(schemaPath, method, status, type);
        // A page for people (text/html) is checked as the string its schema says; anything else is JSON.
        const body: unknown = type === 'text/html' ? await response.clone().text() : await response.clone().json();
        if (!validate(body)) {
          throw new Error(
            `${operation.operationId} ${status} differs from its documented schema: ${this.validators.errorsText(validate.errors)}\n` +
              JSON.stringify(body).slice(0, 2000),
          );
        }
        return undefined;
      },
    };
  }
}

/** openapi-fetch's body serializer for multipart uploads: Blob and File fields go as files. */
export function formData(body: unknown): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item instanceof Blob) form.append(name, item);
      else if (item !== undefined) form.append(name, String(item));
    }
  }
  return form;
}

/**
 * The set-up of a client test file: one app (with `options`), `count` tenants, the contract
 * client, and `api` typed and keyed for the first tenant (`a`; `b` is the second).
 */
export function withClient(count: number, options: StartAppOptions = {}) {
  const ctx = withTenants(count, options);
  let contract: ContractClient;
  let api: SitebaseClient;
  beforeAll(async () => {
    contract = await ContractClient.start(ctx.t);
    api = contract.as(ctx.tenants[0].key);
  });
  return {
    get t(): TestApp {
      return ctx.t;
    },
    get a(): Tenant {
      return ctx.tenants[0];
    },
    get b(): Tenant {
      return ctx.tenants[1];
    },
    get contract(): ContractClient {
      return contract;
    },
    get api(): SitebaseClient {
      return api;
    },
  };
}
