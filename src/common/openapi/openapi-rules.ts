import type { SchemaObject } from '@nestjs/swagger';
import type { CheckedKind } from '../input/checked';

/**
 * What one validation rule says in OpenAPI 3.0 (docs/openapi.md, "Rules from the validators").
 * `schema` is written into the property's schema (into `items` for a rule with `each: true`);
 * `described` is a sentence for the property's description, for what a schema cannot say
 * (a rule across fields, a check against a list kept in code). A rule may give both. `checked`
 * says a valid-looking value may still be refused, by what (`x-sitebase-checked`).
 */
export interface SchemaRule {
  schema?: SchemaObject;
  described?: string;
  checked?: CheckedKind;
}

type RuleOf = (constraints: unknown[]) => SchemaRule;

const STRING = { type: 'string' } as const;

/** class-validator's own rules, by their constraint name. */
const BUILT_IN: Record<string, RuleOf> = {
  isString: () => ({ schema: STRING }),
  isInt: () => ({ schema: { type: 'integer' } }),
  isNumber: () => ({ schema: { type: 'number' } }),
  isBoolean: () => ({ schema: { type: 'boolean' } }),
  isArray: () => ({ schema: { type: 'array' } }),
  isObject: () => ({ schema: { type: 'object' } }),
  // Only through @IsTimestamp(), whose transform reads an RFC 3339 string (dto-rules.ts).
  isDate: () => ({ schema: { type: 'string', format: 'date-time' } }),
  // RFC 3339 / ISO 8601 strings kept as strings.
  isDateString: () => ({ schema: { type: 'string', format: 'date-time' } }),
  isISO8601: () => ({ schema: { type: 'string', format: 'date-time' } }),
  // A string that is not empty; on other types it refuses null and '' only (the property is not nullable).
  isNotEmpty: () => ({ schema: { minLength: 1 } }),
  minLength: ([n]) => ({ schema: { minLength: n as number } }),
  maxLength: ([n]) => ({ schema: { maxLength: n as number } }),
  min: ([n]) => ({ schema: { minimum: n as number } }),
  max: ([n]) => ({ schema: { maximum: n as number } }),
  arrayMinSize: ([n]) => ({ schema: { minItems: n as number } }),
  arrayMaxSize: ([n]) => ({ schema: { maxItems: n as number } }),
  arrayUnique: () => ({ schema: { uniqueItems: true } }),
  isIn: ([values]) => ({ schema: { enum: [...(values as unknown[])] } }),
  isEnum: ([entity]) => ({
    schema: {
      enum: Object.entries(entity as object)
        .filter(([key]) => Number.isNaN(Number(key)))
        .map(([, value]) => value as unknown),
    },
  }),
  isEmail: () => ({ schema: { format: 'email' } }),
  isUrl: () => ({ schema: { format: 'uri' } }),
  isUUID: () => ({ schema: { format: 'uuid' } }),
  matches: ([pattern, modifiers]) => patternRule(pattern as RegExp | string, modifiers as string | undefined),
  minDate: ([date]) => ({ described: `Not before ${describeDate(date)}.`, checked: timeChecked(date) }),
  maxDate: ([date]) => ({ described: `Not after ${describeDate(date)}.`, checked: timeChecked(date) }),
};

/** The project's own rules (`ValidateBy` in DTO files): each declares its schema beside its validator. */
const DECLARED = new Map<string, RuleOf>();

/**
 * Declares what a custom validation rule (by its `ValidateBy` name) says in the document. A rule
 * that is neither declared nor built in fails the document's build: the document would otherwise
 * not say what the server enforces.
 */
export function declareSchemaRule(name: string, rule: SchemaRule | RuleOf): void {
  if (BUILT_IN[name]) throw new Error(`${name} is class-validator's own rule`);
  DECLARED.set(name, typeof rule === 'function' ? rule : () => rule);
}

/** The schema a rule named `name` with these constraints gives, or undefined when none is declared. */
export function schemaRuleOf(name: string, constraints: unknown[]): SchemaRule | undefined {
  const rule = BUILT_IN[name] ?? DECLARED.get(name);
  return rule?.(constraints ?? []);
}

/**
 * `Matches` as an ECMA-262 `pattern` (what OpenAPI 3.0 patterns are). A pattern has no flags:
 * one with flags is described.
 */
function patternRule(pattern: RegExp | string, modifiers?: string): SchemaRule {
  const source = typeof pattern === 'string' ? pattern : pattern.source;
  const flags = [...new Set(`${typeof pattern === 'string' ? '' : pattern.flags}${modifiers ?? ''}`)].filter(
    (flag) => flag !== 'u' && flag !== 'g' && flag !== 'y',
  );
  if (flags.length === 0) return { schema: { pattern: source } };
  // A pattern without its flags would refuse what the server accepts: described instead.
  return { described: `Matches \`/${source}/${flags.join('')}\`.` };
}

/** A bound computed at each request moves with the time: a valid-looking date may be refused. */
function timeChecked(date: unknown): CheckedKind | undefined {
  return typeof date === 'function' ? 'time' : undefined;
}

function describeDate(date: unknown): string {
  if (typeof date === 'function') return 'the time of the request';
  return date instanceof Date ? date.toISOString() : String(date);
}
