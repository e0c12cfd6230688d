import { Type } from '@nestjs/common';
import type { OpenAPIObject, ParameterObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { checkedRules, CheckedKind } from '../input/checked';
import { OperationInputs, PropertyRules, rulesOfClass } from './openapi-inputs';
import { schemaRuleOf } from './openapi-rules';
import { SiteNameParamDto } from '../http/params';

/**
 * The document's request schemas and parameters written from the validators' rules
 * (docs/openapi.md, "Rules from the validators"): the DTO's class-validator decorators are the
 * one declaration; @ApiProperty adds words (description, example), never a rule. Every
 * constraint keyword a request schema or parameter carries is replaced by what the rules say.
 */

/** The keywords a rule can give: nothing else may state a constraint on a request field. */
export const CONSTRAINT_KEYWORDS = [
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'nullable',
] as const;

type Schema = SchemaObject | ReferenceObject;

const isRef = (schema: Schema | undefined): schema is ReferenceObject => !!schema && '$ref' in schema;

/** `#/components/schemas/X` of a property that is a reference (plain, or the allOf swagger writes). */
function refOf(schema: Schema): string | undefined {
  if (isRef(schema)) return schema.$ref;
  const only = schema.allOf?.length === 1 ? schema.allOf[0] : undefined;
  return only && isRef(only) ? only.$ref : undefined;
}

/**
 * Writes the rules into the document: every request body schema of a validated class (and the
 * classes nested in it) and every path and query parameter of a validated DTO.
 */
export function deriveRequestSchemas(document: OpenAPIObject, inputs: Map<string, OperationInputs>): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const classes = new Map<string, Function>();
  const pending: Array<[SchemaObject, Function]> = [];
  const done = new Set<SchemaObject>();
  const claim = (name: string, cls: Function) => {
    const known = classes.get(name);
    if (known && known !== cls) throw new Error(`Two validated classes are documented as ${name}`);
    classes.set(name, cls);
    const schema = schemas[name];
    if (schema && !isRef(schema)) pending.push([schema, cls]);
  };

  for (const op of operationsOf(document)) {
    const found = op.operationId ? inputs.get(op.operationId) : undefined;
    if (!found) continue;
    for (const media of Object.values(
      (op.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content ?? {},
    )) {
      const ref = media.schema && refOf(media.schema);
      const name = ref?.replace('#/components/schemas/', '');
      const cls = found.body.find((c) => c.name === name);
      if (name && cls) claim(name, cls);
    }
    for (const param of (op.parameters ?? []) as ParameterObject[]) {
      if (param.in !== 'query' && param.in !== 'path') continue;
      const rules = parameterRules(param, param.in === 'query' ? found.query : found.param);
      if (!rules) continue;
      param.schema = applyRules(param.schema ?? {}, rules, false, claim);
      if (param.in === 'query') param.required = rules.required;
    }
  }
  while (pending.length) {
    const [schema, cls] = pending.shift()!;
    if (done.has(schema)) continue;
    done.add(schema);
    applyClassRules(schema, cls, claim);
  }
  // A nullable nested object: OpenAPI 3.0 has no nullable $ref (`nullable` beside `allOf` still
  // applies the referenced schema to null), so the nested schema is written in place.
  for (const [schema] of [...done].map((s) => [s] as const)) {
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const marker = property as SchemaObject & { 'x-nullable-ref'?: string };
      const ref = marker['x-nullable-ref'];
      if (!ref) continue;
      const target = schemas[ref.replace('#/components/schemas/', '')] as SchemaObject;
      const { description } = marker;
      schema.properties![name] = {
        ...structuredClone(target),
        nullable: true,
        ...(description ? { description } : {}),
      };
    }
  }
}

/**
 * The rules of a parameter: its DTO's, or for the site's name where the handler takes no DTO for
 * it, those of SiteNameParamDto, the pattern the guard checks before it looks the site up.
 */
function parameterRules(param: ParameterObject, classes: Type[]): PropertyRules | undefined {
  for (const cls of classes) {
    const rules = rulesOfClass(cls).get(param.name);
    if (rules) return rules;
  }
  if (param.in === 'path' && (param.name === 'siteName' || param.name === 'site_name'))
    return rulesOfClass(SiteNameParamDto).get('siteName');
  return undefined;
}

/** Metadata of a body class whose fields are another party's (FreeFormBody). */
const FREE_FORM = 'sitebase:free-form-body';

/**
 * A body read from its raw bytes by its handler, never by the ValidationPipe (a provider's
 * webhook): the document says any field is allowed, not that none is.
 */
export function FreeFormBody(): ClassDecorator {
  return (target) => Reflect.defineMetadata(FREE_FORM, true, target);
}

/** Whether a body class is another party's, read by its handler (FreeFormBody): no rules to compare. */
export function isFreeFormBody(cls: Function): boolean {
  return Reflect.getMetadata(FREE_FORM, cls) === true;
}

function applyClassRules(schema: SchemaObject, cls: Function, claim: (name: string, cls: Function) => void): void {
  const rules = rulesOfClass(cls);
  schema.type = 'object';
  // The global ValidationPipe has forbidNonWhitelisted: an unknown field is a 400.
  schema.additionalProperties = isFreeFormBody(cls);
  const required: string[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const own = rules.get(name);
    if (!own) continue;
    schema.properties![name] = applyRules(property, own, true, claim);
    if (own.required) required.push(name);
  }
  if (required.length) schema.required = required;
  else delete schema.required;
  const whole = checkedRules(cls, '');
  describe(
    schema,
    whole.map((c) => c.sentence),
  );
  mark(
    schema,
    whole.map((c) => c.kind),
  );
}

/** `x-sitebase-checked`: what a value the schema allows may still be refused by (docs/openapi.md). */
function mark(schema: SchemaObject, kinds: CheckedKind[]): void {
  if (kinds.length === 0) return;
  const own = schema as SchemaObject & { 'x-sitebase-checked'?: CheckedKind[] };
  own['x-sitebase-checked'] = [...new Set([...(own['x-sitebase-checked'] ?? []), ...kinds])];
}

/** One property's schema (a body property when `body`, else a parameter's) from its rules. */
function applyRules(
  original: Schema,
  rules: PropertyRules,
  body: boolean,
  claim: (name: string, cls: Function) => void,
): Schema {
  const ref = refOf(original);
  if (rules.nested) {
    return nestedSchema(original, ref, rules, claim);
  }
  if (ref) return original;
  const schema = original as SchemaObject;
  strip(schema);
  if (schema.items && !isRef(schema.items)) strip(schema.items);
  for (const m of rules.rules) {
    const rule = schemaRuleOf(m.name ?? m.type, m.constraints);
    if (!rule?.schema) continue;
    if (m.each) {
      schema.type = 'array';
      const items = (schema.items ??= {});
      if (!isRef(items)) merge(items, rule.schema);
    } else merge(schema, rule.schema);
  }
  if (body && rules.nullable) allowNull(schema);
  describe(schema, rules.described);
  mark(schema, rules.checked);
  return schema;
}

/** @IsOptional() lets null through: `nullable` needs a `type` beside it, else a member of the union says it. */
function allowNull(schema: SchemaObject): void {
  if (schema.type) schema.nullable = true;
  else if (![...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].some((s) => !isRef(s) && s.nullable))
    describe(schema, ['null is accepted.']);
}

function nestedSchema(
  original: Schema,
  ref: string | undefined,
  rules: PropertyRules,
  claim: (name: string, cls: Function) => void,
): Schema {
  const nested = rules.nested!;
  const each = rules.rules.some((m) => m.each) || (!isRef(original) && original.type === 'array');
  if (each) {
    const schema = original as SchemaObject;
    strip(schema);
    for (const m of rules.rules) {
      const rule = schemaRuleOf(m.name ?? m.type, m.constraints);
      if (rule?.schema && !m.each) merge(schema, rule.schema);
    }
    schema.type = 'array';
    const items = schema.items;
    if (items && isRef(items)) claim(items.$ref.replace('#/components/schemas/', ''), nested);
    else if (items) applyClassRules(items, nested, claim);
    if (rules.nullable) allowNull(schema);
    describe(schema, rules.described);
    mark(schema, rules.checked);
    return schema;
  }
  if (ref) {
    claim(ref.replace('#/components/schemas/', ''), nested);
    if (!rules.nullable) {
      if (rules.checked.length === 0) return original;
      // A reference takes no sibling keywords in OpenAPI 3.0: wrapped in allOf to carry the mark.
      const wrapped: SchemaObject = isRef(original) ? { allOf: [original] } : original;
      describe(wrapped, rules.described);
      mark(wrapped, rules.checked);
      return wrapped;
    }
    const description = isRef(original) ? undefined : original.description;
    return { 'x-nullable-ref': ref, ...(description ? { description } : {}) } as SchemaObject;
  }
  const schema = original as SchemaObject;
  strip(schema);
  applyClassRules(schema, nested, claim);
  if (rules.nullable) allowNull(schema);
  describe(schema, rules.described);
  mark(schema, rules.checked);
  return schema;
}

function strip(schema: SchemaObject): void {
  for (const keyword of CONSTRAINT_KEYWORDS) delete schema[keyword];
}

function merge(schema: SchemaObject, rule: SchemaObject): void {
  for (const [key, value] of Object.entries(rule) as Array<[string, unknown]>) {
    // An integer is a number; minLength 1 of @IsNotEmpty says nothing of a non-string.
    if (key === 'type' && value === 'number' && schema.type === 'integer') continue;
    if (key === 'minLength' && schema.type !== undefined && schema.type !== 'string') continue;
    if (key === 'minLength' && typeof schema.minLength === 'number') {
      schema.minLength = Math.max(schema.minLength, value as number);
      continue;
    }
    (schema as Record<string, unknown>)[key] = value;
  }
}

/** Adds the sentences of the rules no keyword carries, once each. */
function describe(schema: SchemaObject, sentences: string[]): void {
  for (const sentence of sentences) {
    if (schema.description?.includes(sentence)) continue;
    schema.description = schema.description ? `${schema.description.replace(/\.?$/, '.')} ${sentence}` : sentence;
  }
}

type Operation = { operationId?: string; parameters?: unknown[]; requestBody?: unknown };

function operationsOf(document: OpenAPIObject): Operation[] {
  return Object.values(document.paths).flatMap((item) =>
    (['get', 'put', 'post', 'delete', 'patch'] as const).flatMap((verb) =>
      item[verb] ? [item[verb] as Operation] : [],
    ),
  );
}
