import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';

/**
 * #30 row 3's examples (docs/openapi.md, "Rules from the validators"): each constraint the
 * validators enforce is in the live document, a validator built from the document (ajv) refuses
 * the same body, and the server answers it with a 400.
 */

type Schema = Record<string, unknown> & {
  nullable?: boolean;
  properties?: Record<string, Schema>;
  type?: string;
  enum?: unknown[];
  pattern?: string;
  additionalProperties?: unknown;
};
type Doc = { components: { schemas: Record<string, Schema> } };

describe('The issue’s examples: the document refuses what the server refuses', () => {
  let t: TestApp;
  let doc: Doc;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startApp();
    doc = (await request(t.server).get('/docs/openapi.json').expect(200)).body as Doc;
    tenant = await createTenant(t);
  });
  afterAll(() => t.close());

  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  /** OpenAPI 3.0's `nullable` as JSON Schema's `type: [t, 'null']` (as api-client.ts's answer check does). */
  const toJsonSchema = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(toJsonSchema);
    if (!node || typeof node !== 'object') return node;
    const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, toJsonSchema(v)])) as Schema;
    if (out.nullable === true && typeof out.type === 'string') {
      out.type = [out.type, 'null'] as unknown as string;
      if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    }
    delete out.nullable;
    delete out.example;
    return out;
  };
  const accepts = (schemaName: string, body: unknown) => {
    if (!ajv.getSchema('doc')) ajv.addSchema({ components: toJsonSchema(doc.components) as object }, 'doc');
    return ajv.validate({ $ref: `doc#/components/schemas/${schemaName}` }, body);
  };
  const product = { name: 'Mug', unitAmount: 1200, currency: 'EUR' };

  it('empty option1: minLength 1 (400 from the server)', async () => {
    expect(doc.components.schemas.CreateProductDto.properties?.option1).toMatchObject({
      minLength: 1,
      nullable: true,
    });
    expect(accepts('CreateProductDto', { ...product, option1: '' })).toBe(false);
    expect(accepts('CreateProductDto', { ...product, option1: 'Size' })).toBe(true);
    const res = await tenant.api.post(`/api/v2/sites/${tenant.siteName}/products`).send({ ...product, option1: '' });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'option1' })]);
  });

  it('lower-case currency: an enum of the ISO 4217 codes the validator knows (400 from the server)', async () => {
    const currency = doc.components.schemas.CreateProductDto.properties?.currency as { enum?: string[] };
    expect(currency.enum).toEqual(expect.arrayContaining(['EUR', 'JPY', 'USD']));
    expect(currency.enum).not.toContain('eur');
    expect(accepts('CreateProductDto', { ...product, currency: 'XYZ' })).toBe(false);
    expect(accepts('CreateProductDto', { ...product, currency: 'eur' })).toBe(false);
    const res = await tenant.api
      .post(`/api/v2/sites/${tenant.siteName}/products`)
      .send({ ...product, currency: 'eur' });
    expectProblem(res, 400, 'validation_failed');
  });

  it('recurring without its interval: required inside a nullable object', () => {
    const recurring = doc.components.schemas.CreateProductDto.properties?.recurring;
    expect(recurring).toMatchObject({ type: 'object', nullable: true, required: ['interval', 'intervalCount'] });
    expect(recurring?.additionalProperties).toBe(false);
    expect(accepts('CreateProductDto', { ...product, recurring: { intervalCount: 1 } })).toBe(false);
    expect(accepts('CreateProductDto', { ...product, recurring: null })).toBe(true);
    expect(accepts('CreateProductDto', { ...product, recurring: { interval: 'month', intervalCount: 1 } })).toBe(true);
  });

  it('a non-email email: format email', () => {
    expect(doc.components.schemas.SubscribeDto.properties?.email).toMatchObject({ format: 'email', maxLength: 254 });
    expect(accepts('SubscribeDto', { email: 'not-an-email' })).toBe(false);
  });

  it('slugs: the slug pattern', () => {
    const slug = doc.components.schemas.CreateProductDto.properties?.slug;
    expect(slug?.pattern).toBe('^(?!\\d+$)[a-z0-9]+(?:-[a-z0-9]+)*$');
    expect(accepts('CreateProductDto', { ...product, slug: 'Not A Slug' })).toBe(false);
  });

  it('template types and post_type: the patterns their validators check', () => {
    expect(doc.components.schemas.CreateEmailTemplateDto.properties?.type?.pattern).toBe(
      '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$',
    );
    expect(doc.components.schemas.V1CreatePageDto.properties?.post_type?.pattern).toBe('^[a-z][a-z0-9_-]{0,39}$');
    expect(accepts('V1CreatePageDto', { post_title: 'x', post_type: 'Not valid' })).toBe(false);
  });

  it('enums from @IsIn: product status', () => {
    expect(doc.components.schemas.CreateProductDto.properties?.status?.enum).toEqual([
      'draft',
      'published',
      'archived',
    ]);
    expect(accepts('CreateProductDto', { ...product, status: 'gone' })).toBe(false);
  });

  it('an unknown field: refused by both', async () => {
    expect(accepts('CreateProductDto', { ...product, colour: 'red' })).toBe(false);
    const res = await tenant.api.post(`/api/v2/sites/${tenant.siteName}/products`).send({ ...product, colour: 'red' });
    expectProblem(res, 400, 'validation_failed');
  });
});
