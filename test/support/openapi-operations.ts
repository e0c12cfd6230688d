import type { Server } from 'node:http';
import request from 'supertest';

/** The parts of an OpenAPI schema object the input tests read. */
export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  nullable?: boolean;
  example?: unknown;
  enum?: unknown[];
  items?: Schema;
  maxItems?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  oneOf?: Schema[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  required?: string[];
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}

interface OperationObject {
  parameters?: Parameter[];
  responses?: Record<string, unknown>;
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  security?: Array<Record<string, string[]>>;
}

export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The OpenAPI path, e.g. `/api/v2/sites/{siteName}/content/{id}`. */
  path: string;
  label: string;
  /** Names of `{...}` segments, read from the path itself (the document may leave some out). */
  pathParams: string[];
  /** Each path parameter's documented schema (an id is an integer; an id-or-slug a string). */
  pathParamSchemas: Record<string, Schema>;
  queryParams: Array<{ name: string; schema: Schema; required: boolean }>;
  /** The statuses the document lists for it, success and problems alike. */
  responses: number[];
  body: 'json' | 'multipart' | 'none';
  /** A JSON route that also takes `application/x-www-form-urlencoded` (an HTML form's post). */
  formBody: boolean;
  /** A JSON route that also takes JSON labelled `text/plain` (Amazon SNS's post). */
  textBody: boolean;
  bodyRequired: boolean;
  /** The JSON body schema with its $ref resolved. */
  schema?: Schema;
  /** No security, or an empty requirement: anonymous callers are let in. */
  isPublic: boolean;
  /** Only a site-user session may call it (`/users/me/**`): a key is refused. */
  sessionOnly: boolean;
  /** The security schemes any of its requirements names (`apiKey`, `bearer`, `session`). */
  security: string[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, Schema> };
}

/** The app's own document, fetched like a client would, and every operation in it. */
export async function loadOperations(server: Server): Promise<{ doc: OpenApiDocument; operations: Operation[] }> {
  const res = await request(server).get('/docs/openapi.json');
  if (res.status !== 200) throw new Error(`GET /docs/openapi.json answered ${res.status}`);
  const doc = res.body as OpenApiDocument;
  const operations: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const content = op.requestBody?.content ?? {};
      const json = content['application/json']?.schema;
      operations.push({
        method: method as Operation['method'],
        path,
        label: `${method.toUpperCase()} ${path}`,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]),
        pathParamSchemas: Object.fromEntries(
          (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, resolve(doc, p.schema ?? {})]),
        ),
        queryParams: (op.parameters ?? [])
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, schema: resolve(doc, p.schema ?? {}), required: p.required === true })),
        responses: Object.keys(op.responses ?? {}).map(Number),
        body: json ? 'json' : content['multipart/form-data'] ? 'multipart' : 'none',
        formBody: Boolean(json && content['application/x-www-form-urlencoded']),
        textBody: Boolean(json && content['text/plain']),
        bodyRequired: op.requestBody?.required !== false,
        schema: json ? resolve(doc, json) : undefined,
        isPublic:
          op.security === undefined || op.security.length === 0 || op.security.some((s) => Object.keys(s).length === 0),
        sessionOnly:
          (op.security ?? []).length > 0 &&
          (op.security ?? []).every((s) => Object.keys(s).length === 1 && Object.keys(s)[0] === 'session'),
        security: [...new Set((op.security ?? []).flatMap((s) => Object.keys(s)))],
      });
    }
  }
  return { doc, operations };
}

export function resolve(doc: OpenApiDocument, schema: Schema): Schema {
  // A reference wrapped to carry a description or a mark (`allOf` of one): the referenced schema.
  const only = (schema as { allOf?: Schema[] }).allOf;
  if (!schema.$ref && only?.length === 1 && only[0].$ref) return resolve(doc, only[0]);
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const found = doc.components.schemas[name];
  if (!found) throw new Error(`unknown schema ${schema.$ref}`);
  return resolve(doc, found);
}

/** A body with each required property set from its example (or a plain value of its type). */
export function exampleBody(schema: Schema): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const p = schema.properties?.[name] ?? {};
    body[name] =
      p.example ??
      (p.type === 'number' || p.type === 'integer' ? 1 : p.type === 'array' ? [] : p.type === 'boolean' ? false : 'x');
  }
  return body;
}

/** `JSON.stringify(base)` with extra members written as raw JSON text (so `__proto__` keys survive). */
export function jsonWith(base: Record<string, unknown>, extras: Array<[string, string]>): string {
  const members = [
    ...Object.entries(base)
      .filter(([k]) => !extras.some(([e]) => e === k))
      .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`),
    ...extras.map(([k, raw]) => `${JSON.stringify(k)}:${raw}`),
  ];
  return `{${members.join(',')}}`;
}
