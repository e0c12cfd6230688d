import type { OpenApiDocument, Schema } from './openapi-operations';

/**
 * What Swagger UI (5.x, OpenAPI 3.0) puts in "Try it out" from the document's examples
 * (docs/openapi.md, "Examples that run"): a body built property by property from each
 * property's `example`; where a property has none, Swagger UI's own sample of its type (the
 * first enum value, `true`, the minimum or 0, `"string"`, the current date-time). A string with
 * a `pattern` or a `uri` format and no example would be a random or invalid value there:
 * `missingExamples` lists those, and the examples test requires none.
 */
export function sampleOf(doc: OpenApiDocument, schema: Schema): unknown {
  const s = resolveDeep(doc, schema);
  if (s.example !== undefined) return s.example;
  if (s.enum?.length) return s.enum[0];
  if (s.properties) {
    return Object.fromEntries(Object.entries(s.properties).map(([name, p]) => [name, sampleOf(doc, p)]));
  }
  if (s.oneOf?.length) return sampleOf(doc, s.oneOf[0]);
  if (s.anyOf?.length) return sampleOf(doc, s.anyOf[0]);
  switch (s.type) {
    case 'array':
      return s.items ? [sampleOf(doc, s.items)] : [];
    case 'object':
      return {};
    case 'boolean':
      return (s as { default?: unknown }).default ?? true;
    case 'integer':
    case 'number':
      return s.minimum ?? 0;
    case 'string':
      if (s.format === 'date-time') return new Date().toISOString();
      if (s.format === 'email') return 'user@example.com';
      if (s.format === 'uuid') return '3fa85f64-5717-4562-b3fc-2c963f66afa6';
      return 'string';
    default:
      return undefined;
  }
}

/** Properties (by path) whose sample Swagger UI would make up at random or invalid: each needs an example. */
export function missingExamples(doc: OpenApiDocument, schema: Schema, at = ''): string[] {
  const s = resolveDeep(doc, schema);
  if (s.example !== undefined || s.enum?.length) return [];
  if (s.properties) {
    return Object.entries(s.properties).flatMap(([name, p]) => missingExamples(doc, p, `${at}.${name}`));
  }
  if (s.type === 'array' && s.items) return missingExamples(doc, s.items, `${at}[]`);
  const unions = [...(s.oneOf ?? []), ...(s.anyOf ?? [])];
  if (unions.length) return missingExamples(doc, unions[0], at);
  const pattern = (s as { pattern?: string }).pattern;
  if (s.type === 'string' && (pattern || s.format === 'uri')) return [at];
  return [];
}

/** The schema with its `$ref` (or swagger's single-member `allOf` around one) followed. */
function resolveDeep(doc: OpenApiDocument, schema: Schema): Schema {
  let s = schema as Schema & { allOf?: Schema[] };
  for (;;) {
    if (s.$ref) s = doc.components.schemas[s.$ref.replace('#/components/schemas/', '')];
    else if (s.allOf?.length === 1 && !s.properties) s = { ...s.allOf[0], ...withoutAllOf(s) };
    else return s;
  }
}

function withoutAllOf(s: Schema & { allOf?: Schema[] }): Schema {
  const { allOf: _allOf, ...rest } = s;
  return rest;
}
