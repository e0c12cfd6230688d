/**
 * The cut of Stripe's OpenAPI document (test/fixtures/stripe/spec-subset.json, made by
 * cut-spec.mjs; VERSION.md says which commit) and its fixtures, loaded once per process, and
 * the routing of a request to the spec's operation by method and path template.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Json } from './store';

export interface Schema {
  $ref?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  maxLength?: number;
  maxItems?: number;
  nullable?: boolean;
  format?: string;
  'x-stripeBypassValidation'?: boolean;
}

interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  template: string;
  operationId: string;
  /** What the request carries, as one object schema: the form body of a POST, the query of a GET. */
  params: Schema;
  pattern: RegExp;
  pathParams: string[];
}

interface Document {
  info: { version: string };
  'x-cut': { commit: string };
  paths: Record<string, Record<string, { operationId: string; parameters?: Parameter[]; requestBody?: Json }>>;
  components: { schemas: Record<string, Schema> };
}

const DIR = join(__dirname, '..', '..', 'fixtures', 'stripe');
let loaded: { doc: Document; operations: Operation[]; fixtures: Record<string, Record<string, unknown>> } | null = null;

function load() {
  if (loaded) return loaded;
  const doc = JSON.parse(readFileSync(join(DIR, 'spec-subset.json'), 'utf8')) as Document;
  const fixtures = (JSON.parse(readFileSync(join(DIR, 'fixtures.json'), 'utf8')) as { resources: Json }).resources;
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    const pathParams: string[] = [];
    const source = template
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const m = /^\{([^}]+)\}$/.exec(part);
        if (!m) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
        pathParams.push(m[1]);
        return '([^/]+)';
      })
      .join('');
    for (const [method, op] of Object.entries(methods)) {
      let params: Schema;
      if (method === 'get') {
        const query = (op.parameters ?? []).filter((p) => p.in === 'query');
        params = {
          type: 'object',
          properties: Object.fromEntries(query.map((p) => [p.name, p.schema])),
          required: query.filter((p) => p.required).map((p) => p.name),
          additionalProperties: false,
        };
      } else {
        params = op.requestBody?.content?.['application/x-www-form-urlencoded']?.schema ?? {
          type: 'object',
          additionalProperties: false,
        };
      }
      operations.push({
        method: method.toUpperCase(),
        template,
        operationId: op.operationId,
        params,
        pattern: new RegExp(`^${source}$`),
        pathParams,
      });
    }
  }
  // A literal segment wins over a parameter (`/v1/payment_intents/{intent}/cancel` is tried first).
  operations.sort((a, b) => b.template.split('/').length - a.template.split('/').length);
  return (loaded = { doc, operations, fixtures });
}

/** The spec's operation for a request, with its path parameters; `null` when none matches. */
export function findOperation(method: string, path: string): { op: Operation; ids: Record<string, string> } | null {
  for (const op of load().operations) {
    if (op.method !== method) continue;
    const m = op.pattern.exec(path);
    if (!m) continue;
    const ids = Object.fromEntries(op.pathParams.map((name, i) => [name, decodeURIComponent(m[i + 1])]));
    return { op, ids };
  }
  return null;
}

/** Follows a `$ref` to the component schema it names. */
export function resolve(schema: Schema): Schema {
  let s = schema;
  while (s.$ref) s = load().doc.components.schemas[s.$ref.replace('#/components/schemas/', '')];
  return s;
}

/** A deep copy of the fixture of a resource (`product`, `payment_intent`, `checkout.session`, …). */
export function fixture(name: string): Record<string, Json> {
  const f = load().fixtures[name];
  if (!f) throw new Error(`no Stripe fixture for ${name}`);
  return structuredClone(f);
}

export function specVersion(): { apiVersion: string; commit: string } {
  const { doc } = load();
  return { apiVersion: doc.info.version, commit: doc['x-cut'].commit };
}

/** A component schema of the subset (`event`, `payment_intent`, …). */
export function componentSchema(name: string): Schema | undefined {
  return load().doc.components.schemas[name];
}
