import type { Type } from '@nestjs/common';
import { ValidationTypes } from 'class-validator';
import request from 'supertest';
import { ValidationRule, validationRules } from '../../src/common/internals/class-validator-metadata';
import { operationId } from '../../src/common/openapi/openapi';
import { CONSTRAINT_KEYWORDS, isFreeFormBody } from '../../src/common/openapi/openapi-derive';
import { operationInputs, rulesOfClass } from '../../src/common/openapi/openapi-inputs';
import { schemaRuleOf } from '../../src/common/openapi/openapi-rules';
import { startApp, TestApp } from '../support/app';
import { expectOrFix } from '../support/matchers';

/**
 * docs/openapi.md, "Rules from the validators": every rule a request DTO's validators enforce has
 * its counterpart in the live document, and every constraint the document states on a request
 * field comes from a rule. Walked both ways over class-validator's metadata and the document.
 */

type Schema = Record<string, unknown> & {
  $ref?: string;
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  type?: string;
  nullable?: boolean;
  description?: string;
  additionalProperties?: unknown;
};
type Param = { name: string; in: string; required?: boolean; schema?: Schema };
type Op = { operationId?: string; parameters?: Param[]; requestBody?: { content: Record<string, { schema: Schema }> } };
type Doc = { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, Schema> } };

describe('OpenAPI request schemas are the validators’ rules', () => {
  let t: TestApp;
  let doc: Doc;

  beforeAll(async () => {
    t = await startApp();
    const res = await request(t.server).get('/docs/openapi.json').expect(200);
    doc = res.body as Doc;
  });
  afterAll(() => t.close());

  const deref = (schema: Schema | undefined): Schema | undefined => {
    if (!schema) return undefined;
    const ref = schema.$ref ?? (schema.allOf?.length === 1 ? schema.allOf[0].$ref : undefined);
    return ref ? doc.components.schemas[ref.replace('#/components/schemas/', '')] : schema;
  };
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([verb, op]) => ({ where: `${verb.toUpperCase()} ${path}`, op })),
    );

  /** The class-validator rules of a property, straight from the storage (inherited ones included). */
  const metadataOf = (cls: Function, property: string): ValidationRule[] =>
    validationRules(cls).filter((m) => m.propertyName === property);
  const isRuleWithSchema = (m: ValidationRule) =>
    m.type === ValidationTypes.CUSTOM_VALIDATION || m.type === ValidationTypes.IS_DEFINED;

  /** Every mismatch between one property's rules and its documented schema. */
  function compareProperty(at: string, cls: Function, property: string, schema: Schema, body: boolean): string[] {
    const problems: string[] = [];
    const rules = metadataOf(cls, property);
    const nullable = rules.some((m) => m.type === ValidationTypes.CONDITIONAL_VALIDATION && m.name === 'isOptional');
    const nested = rules.some((m) => m.type === ValidationTypes.NESTED_VALIDATION);
    const own = deref(schema)!;
    const explained = new Map<string, unknown[]>();
    const explain = (target: string, key: string, value: unknown) =>
      explained.set(`${target}.${key}`, [...(explained.get(`${target}.${key}`) ?? []), value]);
    for (const m of rules.filter(isRuleWithSchema)) {
      const rule = schemaRuleOf(m.name ?? m.type, m.constraints);
      if (!rule) {
        problems.push(`${at}: rule ${m.name} declares no schema (declareSchemaRule beside its validator)`);
        continue;
      }
      if (rule.described && !`${schema.description ?? ''}`.includes(rule.described))
        problems.push(`${at}: the description lacks "${rule.described}"`);
      const target = m.each ? deref(own.items) : own;
      for (const [key, value] of Object.entries(rule.schema ?? {})) {
        explain(m.each ? 'items' : 'self', key, value);
        // A rule on the whole array may say what its items are (the event catalogue's enum).
        if (key === 'items' && !m.each && typeof value === 'object' && value !== null)
          for (const [inner, v] of Object.entries(value)) explain('items', inner, v);
        if (nested && !m.each && key === 'type') continue;
        if (key === 'type' && value === 'number' && target?.type === 'integer') continue;
        if (key === 'minLength' && target?.type !== 'string') continue;
        if (
          JSON.stringify(target?.[key]) !== JSON.stringify(value) &&
          !(key === 'minLength' && (target?.[key] as number) > (value as number))
        )
          problems.push(
            `${at}: ${m.name}${m.each ? ' (each)' : ''} says ${key} ${JSON.stringify(value)}, the document ${JSON.stringify(target?.[key])}`,
          );
      }
    }
    if (body && nullable !== !!schema.nullable && schema.type !== undefined)
      problems.push(
        `${at}: nullable is ${schema.nullable}, @IsOptional ${nullable ? 'lets null through' : 'is absent'}`,
      );
    // The other way: a constraint in the document that no rule gives.
    for (const [target, node] of [
      ['self', schema],
      ['items', schema.items],
    ] as const) {
      if (!node || node.$ref) continue;
      for (const key of CONSTRAINT_KEYWORDS) {
        if (node[key] === undefined || key === 'nullable') continue;
        const given = explained.get(`${target}.${key}`) ?? [];
        if (!given.some((v) => JSON.stringify(v) === JSON.stringify(node[key]) || key === 'minLength'))
          problems.push(
            `${at}: the document says ${target === 'items' ? 'items.' : ''}${key} ${JSON.stringify(node[key])}, no rule does`,
          );
      }
    }
    return problems;
  }

  /** A body class against its schema: properties both ways, required, closed, nested classes too. */
  function compareClass(at: string, cls: Function, schema: Schema, seen: Set<string>): string[] {
    const key = `${cls.name}@${at}`;
    if (seen.has(key)) return [];
    seen.add(key);
    const problems: string[] = [];
    const rules = rulesOfClass(cls);
    if (schema.additionalProperties !== false) problems.push(`${at}: additionalProperties is not false`);
    const documented = schema.properties ?? {};
    for (const [property, own] of rules) {
      const where = `${at}.${property}`;
      const prop = documented[property];
      if (!prop) {
        problems.push(`${where}: validated, not documented`);
        continue;
      }
      problems.push(...compareProperty(where, cls, property, prop, true));
      for (const rule of own.undeclared) problems.push(`${where}: ${rule} says nothing in the document`);
      if (own.required !== (schema.required ?? []).includes(property))
        problems.push(`${where}: required is ${!own.required}, the validators say ${own.required}`);
      if (own.nested) {
        const inner = deref(prop.type === 'array' ? prop.items : prop);
        if (inner)
          problems.push(...compareClass(`${where}${prop.type === 'array' ? '[]' : ''}`, own.nested, inner, seen));
      }
    }
    for (const property of Object.keys(documented))
      if (!rules.has(property))
        problems.push(`${at}.${property}: documented, not validated (an unknown field is a 400)`);
    return problems;
  }

  it('every rule of every request DTO is in the document, and every documented constraint is a rule', () => {
    const inputs = operationInputs(t.app, operationId);
    const problems: string[] = [];
    let bodies = 0;
    let params = 0;
    const seen = new Set<string>();
    for (const { where, op } of operations()) {
      const found = inputs.get(op.operationId ?? '');
      if (!found) {
        problems.push(`${where}: no handler for ${op.operationId}`);
        continue;
      }
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        const schema = deref(media.schema)!;
        const name = (media.schema.$ref ?? media.schema.items?.$ref ?? '').replace('#/components/schemas/', '');
        const cls = found.body.find((c) => c.name === name);
        // A provider's webhook body is the provider's: its handler reads the raw bytes (FreeFormBody).
        if (cls && isFreeFormBody(cls)) continue;
        if (!cls) {
          if (type === 'application/json') problems.push(`${where}: a JSON body without a validated class`);
          continue;
        }
        bodies++;
        problems.push(...compareClass(name, cls, schema, seen));
      }
      const check = (place: 'query' | 'path', classes: Type[]) => {
        for (const cls of classes)
          for (const [property, own] of rulesOfClass(cls)) {
            const param = (op.parameters ?? []).find((p) => p.in === place && p.name === property);
            if (!param) {
              problems.push(`${where}: ${cls.name}.${property} is validated, not a documented ${place} parameter`);
              continue;
            }
            params++;
            for (const rule of own.undeclared)
              problems.push(`${where} ${property}: ${rule} says nothing in the document`);
            problems.push(
              ...compareProperty(`${where} ${place} ${property}`, cls, property, param.schema ?? {}, false),
            );
            if (place === 'query' && !!param.required !== own.required)
              problems.push(`${where} ${property}: required ${param.required}, the validators say ${own.required}`);
          }
      };
      check('query', found.query);
      check('path', found.param);
    }
    expectOrFix(
      'The document writes each request field from its DTO\'s class-validator rules (docs/openapi.md, "Rules ' +
        'from the validators"); @ApiProperty gives only words and shape. So fix the DTO (src/<module>/dto/): ' +
        'a rule that "declares no schema" or "says nothing in the document" is a validator of your own: ' +
        'declareSchemaRule beside it (src/common/openapi/openapi-rules.ts), or use a project validator; ' +
        '"validated, not documented" or "documented, not validated": give the property both an @ApiProperty and ' +
        'its validators; a constraint "no rule does" is one @ApiProperty wrote by hand: say it with a validator ' +
        'instead; nullable and required follow @IsOptional; a JSON body is a validated DTO class',
      () => expect(problems).toEqual([]),
    );
    expect(bodies).toBeGreaterThan(60);
    expect(params).toBeGreaterThan(150);
  });

  it('closes every request body object, nested ones included (unknown fields are a 400)', () => {
    const open: string[] = [];
    const walk = (schema: Schema | undefined, at: string, seen: Set<Schema>) => {
      const s = deref(schema);
      if (!s || seen.has(s)) return;
      seen.add(s);
      if (s.properties && s.additionalProperties !== false) open.push(at);
      for (const [name, p] of Object.entries(s.properties ?? {}))
        walk(p.type === 'array' ? p.items : p, `${at}.${name}`, seen);
    };
    const inputs = operationInputs(t.app, operationId);
    // A provider's webhook body is the provider's: its handler reads the raw bytes (FreeFormBody).
    const freeForm = (operation: string) => (inputs.get(operation)?.body ?? []).some(isFreeFormBody);
    for (const { where, op } of operations())
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {}))
        if (type !== 'multipart/form-data' && !freeForm(op.operationId ?? '')) walk(media.schema, where, new Set());
    expectOrFix(
      'Every request body object is closed: type each nested object with a DTO class (@ValidateNested() and ' +
        "@Type(() => Thing)), whose schema the document closes; a free-form map is the provider's raw body only " +
        '(FreeFormBody)',
      () => expect(open).toEqual([]),
    );
  });

  it('types integers as integers: arrays of ids, v1 {limit}/{offset}', () => {
    const s = doc.components.schemas;
    for (const [name, field] of [
      ['CreateProductDto', 'attachmentIds'],
      ['BulkDto', 'listIds'],
      ['CreateApiKeyDto', 'siteIds'],
      ['CreateContentDto', 'attachmentIds'],
      ['UpdateMediaDto', 'tagIds'],
    ]) {
      const prop = s[name]?.properties?.[field];
      expect({ name, field, items: prop?.items?.type }).toEqual({ name, field, items: 'integer' });
    }
    for (const path of ['/v1/{site_name}/media/{limit}/{offset}', '/v1/{site_name}/pages/{limit}/{offset}']) {
      const params = doc.paths[path].get.parameters ?? [];
      expect(params.filter((p) => p.name === 'limit' || p.name === 'offset').map((p) => p.schema?.type)).toEqual([
        'integer',
        'integer',
      ]);
    }
  });

  it('types every id of the document as an integer, answers included (one declaration: ID, ID_LIST)', () => {
    // Another system's ids are its strings: a provider's payment, charge, event or notification,
    // a mail's Message-ID, a send batch (uuid), a webhook message, the request's own id.
    const foreign = new Set([
      'UserSubscriptionResponseDto.processorSubscriptionId',
      'SubscriptionEntryDto.processorChargeId',
      'OrderSummaryDto.processorPaymentId',
      'OrderResponseDto.processorPaymentId',
      'UpdatePaymentDto.processorPaymentId',
      'ShipmentResponseDto.notificationId',
      'FulfillmentNotificationDto.id',
      'NotificationOutcomeDto.id',
      'StripeEventOutcomeDto.id',
      'OrderPaymentIntentDto.paymentIntentId',
      'SendEmailResponseDto.batchId',
      'EmailMessageSummaryDto.batchId',
      'EmailMessageSummaryDto.smtpMessageId',
      'EmailMessageResponseDto.batchId',
      'EmailMessageResponseDto.smtpMessageId',
      'WebhookTestResultDto.webhookId',
      'WebhookDeliverySummaryDto.webhookId',
      'WebhookDeliveryResponseDto.webhookId',
      'ProblemDto.requestId',
      // An upload's form field is text: the import's lists as `1,2` (multipart has no JSON array).
      'POST /api/v2/sites/{siteName}/newsletter/subscriptions/import.listIds',
    ]);
    // A get by id or slug (`IdOrSlugParam`) takes text: the one string a path id may be.
    const idOrSlug = schemaRuleOf('isIdOrSlug', [])?.schema?.pattern;
    const isId = (name: string) => /^(id|.*Ids?|.*_ids?)$/.test(name);
    const typeOf = (schema: Schema | undefined) => {
      const s = deref(schema);
      return s?.type === 'array' ? `array of ${deref(s.items)?.type}` : s?.type;
    };
    const wrong: string[] = [];
    let ids = 0;
    const check = (at: string, name: string, schema: Schema | undefined) => {
      if (!isId(name)) return;
      ids++;
      const type = typeOf(schema);
      const want = name.endsWith('s') ? 'array of integer' : 'integer';
      if (type !== want && !foreign.has(at)) wrong.push(`${at}: ${type}, not ${want}`);
      if (foreign.has(at) && type !== 'string') wrong.push(`${at}: listed as another system's id, but ${type}`);
    };
    const walk = (schema: Schema | undefined, at: string, seen: Set<Schema>) => {
      if (!schema || seen.has(schema)) return;
      seen.add(schema);
      if (schema.$ref) return; // a component: walked under its own name
      for (const [name, p] of Object.entries(schema.properties ?? {})) {
        check(`${at}.${name}`, name, p);
        walk(p, `${at}.${name}`, seen);
      }
      for (const part of [schema.items, ...(schema.allOf ?? []), ...((schema.oneOf as Schema[]) ?? [])])
        walk(part, at, seen);
    };
    const seen = new Set<Schema>();
    for (const [name, schema] of Object.entries(doc.components.schemas)) walk(schema, name, seen);
    for (const { where, op } of operations()) {
      for (const p of op.parameters ?? [])
        if (!(p.schema?.type === 'string' && p.schema.pattern === idOrSlug))
          check(`${where} ${p.name}`, p.name, p.schema);
      const answers = Object.values(
        (op as { responses?: Record<string, { content?: Record<string, { schema: Schema }> }> }).responses ?? {},
      );
      for (const media of [
        ...Object.values(op.requestBody?.content ?? {}),
        ...answers.flatMap((r) => Object.values(r.content ?? {})),
      ])
        walk(media.schema, where, seen);
    }
    expectOrFix(
      'Spread ID (an id) or ID_LIST (a list of ids) from src/common/http/api-id.ts into the @ApiProperty of every ' +
        "id, in answers as in requests; another system's string id is listed above",
      () => expect(wrong).toEqual([]),
    );
    expect(ids).toBeGreaterThan(150);
  });

  it('documents Idempotency-Key with the interceptor’s bounds, 1 to 255 characters', () => {
    const headers = operations().flatMap(({ op }) => (op.parameters ?? []).filter((p) => p.name === 'Idempotency-Key'));
    expect(headers.length).toBeGreaterThan(10);
    for (const h of headers) expect(h.schema).toEqual({ type: 'string', minLength: 1, maxLength: 255 });
  });
});
