import fc from 'fast-check';
import { OpenApiDocument, resolve, Schema } from './openapi-operations';

/*
 * Request bodies drawn from an operation's documented schema (docs/testing.md, "Generated
 * bodies"): `validValue` gives values the document says are valid; `brokenBody` gives a valid body
 * with exactly one documented constraint broken, and names the property it broke.
 */

export type FullSchema = Schema & {
  minLength?: number;
  pattern?: string;
  minItems?: number;
  uniqueItems?: boolean;
  additionalProperties?: boolean | Schema;
};

/** Printable text: the document says nothing of NUL or lone surrogates (refused, docs/foundation.md). */
const TEXT_UNIT = fc.constantFrom(
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,!é€'.split(''),
);

function text(min: number, max: number): fc.Arbitrary<string> {
  // Leading and trailing spaces are trimmed by the server (docs/foundation.md): text starts and
  // ends with a letter, so what is sent is what is measured.
  if (max === 0) return fc.constant('');
  return fc
    .array(TEXT_UNIT, { minLength: Math.max(min - 2, 0), maxLength: Math.max(Math.min(max, 24) - 2, 0) })
    .chain((middle) =>
      fc.tuple(fc.constantFrom('a', 'Q', 'z'), fc.constantFrom('b', 'R', '9')).map(([a, b]) => {
        const s = `${a}${middle.join('')}${b}`;
        return s.length <= max ? s : s.slice(0, max);
      }),
    )
    .filter((s) => s.length >= min && s.trim().length === s.length);
}

function stringValue(s: FullSchema): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? 200;
  switch (s.format) {
    case 'email':
      return fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/).map((local) => `${local}@example.com`);
    case 'uri':
      return fc.stringMatching(/^[a-z0-9]{1,10}$/).map((p) => `https://example.com/${p}`);
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'uuid':
      return fc.uuid();
    case 'hostname':
      return fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/).map((label) => `${label}.example.com`);
    default:
      break;
  }
  if (s.pattern) {
    const re = new RegExp(s.pattern);
    // fast-check cannot generate from a lookahead: generated without it, then held to the whole pattern.
    const generable = new RegExp(s.pattern.replace(/\(\?[!=][^)]*\)/g, ''));
    return fc
      .stringMatching(generable)
      .filter(
        (v) =>
          re.test(v) && v.length >= Math.max(min, 1) && v.length <= max && v.trim() === v && !/[\p{Cc}\p{Cs}]/u.test(v),
      );
  }
  return text(min, max);
}

/**
 * The ids of stored data a property marked `x-sitebase-checked: stored data` may name, by the
 * property's name (a site's real list, media, product): valid bodies then mostly do what they ask.
 */
export type StoredIds = (property: string) => number | undefined;

const noIds: StoredIds = () => undefined;

/** A value of `schema` that satisfies every constraint it states. */
export function validValue(
  doc: OpenApiDocument,
  raw: Schema,
  depth = 0,
  ids: StoredIds = noIds,
): fc.Arbitrary<unknown> {
  const s = resolve(doc, raw) as FullSchema;
  const value = nonNullValue(doc, s, depth, ids);
  return s.nullable ? fc.option(value, { nil: null, freq: 6 }) : value;
}

/** A stored id (or a list of one) most of the time, for a property that must name stored data. */
function storedValue(doc: OpenApiDocument, raw: Schema, name: string, depth: number, ids: StoredIds) {
  const plain = validValue(doc, raw, depth, ids);
  const marked = ((raw as { 'x-sitebase-checked'?: string[] })['x-sitebase-checked'] ?? []).includes('stored data');
  const id = marked ? ids(name) : undefined;
  if (id === undefined) return plain;
  const s = resolve(doc, raw) as FullSchema;
  const stored = s.type === 'array' ? fc.constant([id]) : s.type === 'integer' ? fc.constant(id) : undefined;
  return stored ? fc.oneof({ arbitrary: stored, weight: 4 }, { arbitrary: plain, weight: 1 }) : plain;
}

function nonNullValue(doc: OpenApiDocument, s: FullSchema, depth: number, ids: StoredIds): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.oneOf ?? s.anyOf) return fc.oneof(...(s.oneOf ?? s.anyOf)!.map((x) => validValue(doc, x, depth)));
  if ((s as { allOf?: Schema[] }).allOf?.length === 1)
    return validValue(doc, (s as { allOf: Schema[] }).allOf[0], depth);
  switch (s.type) {
    case 'string':
      return stringValue(s);
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1000, max: Math.min(s.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER) });
    case 'number':
      return fc.double({ min: s.minimum ?? -1000, max: s.maximum ?? 1_000_000, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = validValue(doc, s.items ?? {}, depth + 1, ids);
      const constraints = { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 3, 3, depth > 1 ? 1 : 3) };
      return s.uniqueItems
        ? fc.uniqueArray(items, { ...constraints, selector: (v) => JSON.stringify(v) })
        : fc.array(items, constraints);
    }
    case 'object':
    default:
      return objectValue(doc, s, depth, ids);
  }
}

function objectValue(doc: OpenApiDocument, s: FullSchema, depth: number, ids: StoredIds): fc.Arbitrary<unknown> {
  if (!s.properties) {
    // A free-form object (metadata): a few members, of the schema it gives them, else text.
    const values =
      typeof s.additionalProperties === 'object'
        ? validValue(doc, s.additionalProperties, depth + 1, ids)
        : text(0, 20);
    return fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), values, { maxKeys: 3 });
  }
  const shape = Object.fromEntries(
    Object.entries(s.properties).map(([name, p]) => [name, storedValue(doc, p, name, depth + 1, ids)]),
  );
  return fc.record(shape, { requiredKeys: s.required ?? [] });
}

/** One documented constraint a body breaks: where, and what the broken body is. */
export interface BrokenBody {
  body: Record<string, unknown>;
  /** The property path the server must name (`a.b`, `items.0.c`). */
  path: string;
  broke: string;
}

type Breaker = { path: string[]; broke: string; apply: (body: Record<string, unknown>) => void };

/** Every way of breaking one constraint of `s` at `path` (an object member's value). */
function breakersOf(doc: OpenApiDocument, raw: Schema, path: string[], required: boolean): Breaker[] {
  const s = resolve(doc, raw) as FullSchema;
  const out: Breaker[] = [];
  const set = (value: unknown, broke: string) => out.push({ path, broke, apply: (body) => setAt(body, path, value) });
  if (required) out.push({ path, broke: 'required', apply: (body) => deleteAt(body, path) });
  const nullable = s.nullable || [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some((m) => resolve(doc, m).nullable);
  if (!nullable) set(null, 'null');
  if (s.enum) set(`not-${String(s.enum[0])}-x`, 'enum');
  else if (s.type === 'string') {
    set(12345, 'type');
    if (s.minLength && s.minLength > 0) set('', 'minLength');
    if (s.maxLength !== undefined && s.maxLength < 100_000) set('x'.repeat(s.maxLength + 1), 'maxLength');
    if (s.format === 'email') set('not-an-email', 'format email');
    if (s.format === 'date-time') set('yesterday', 'format date-time');
    if (s.format === 'uri') set('not a uri', 'format uri');
    if (s.format === 'hostname') set('not a host', 'format hostname');
    if (s.pattern && !new RegExp(s.pattern).test('~~ !! ~~')) set('~~ !! ~~', 'pattern');
  } else if (s.type === 'integer') {
    set(1.5, 'integer');
    set('1', 'type');
    if (s.minimum !== undefined) set(s.minimum - 1, 'minimum');
    if (s.maximum !== undefined && s.maximum < Number.MAX_SAFE_INTEGER) set(s.maximum + 1, 'maximum');
  } else if (s.type === 'number') {
    set('1', 'type');
    if (s.minimum !== undefined) set(s.minimum - 1, 'minimum');
    if (s.maximum !== undefined) set(s.maximum + 1, 'maximum');
  } else if (s.type === 'boolean') set('true', 'type');
  else if (s.type === 'array') {
    set({}, 'type');
    if (s.minItems) set([], 'minItems');
    if (s.maxItems !== undefined && s.maxItems < 1000) {
      out.push({
        path,
        broke: 'maxItems',
        apply: (body) => {
          const items = getAt(body, path);
          const one = Array.isArray(items) && items.length > 0 ? items[0] : undefined;
          if (one !== undefined && !s.uniqueItems)
            setAt(
              body,
              path,
              Array.from({ length: s.maxItems! + 1 }, () => one),
            );
          else setAt(body, path, 'over');
        },
      });
    }
  } else if (s.properties) {
    set('x', 'type');
    const child = breakersIn(doc, s, path);
    out.push(...child);
  }
  return out;
}

/** The breakers of an object schema's own members, and its unknown-member rule. */
function breakersIn(doc: OpenApiDocument, s: FullSchema, path: string[]): Breaker[] {
  const out: Breaker[] = [];
  for (const [name, p] of Object.entries(s.properties ?? {})) {
    const child = breakersOf(doc, p, [...path, name], (s.required ?? []).includes(name));
    // A member that may be absent is set first, so breaking it means something.
    out.push(...child);
  }
  if (s.additionalProperties === false)
    out.push({
      path: [...path, 'zzUnknown'],
      broke: 'additionalProperties',
      apply: (body) => setAt(body, [...path, 'zzUnknown'], 1),
    });
  return out;
}

/**
 * A valid body with one documented constraint broken. The breaker is chosen among those whose
 * parent object is present in the valid body (an absent optional object has nothing to break).
 */
export function brokenBody(doc: OpenApiDocument, schema: Schema): fc.Arbitrary<BrokenBody> {
  const s = resolve(doc, schema) as FullSchema;
  const breakers = breakersIn(doc, s, []);
  return fc
    .tuple(validValue(doc, s) as fc.Arbitrary<Record<string, unknown>>, fc.nat())
    .map(([valid, n]) => {
      const body = structuredClone(valid);
      const usable = breakers.filter((b) => {
        const parent = b.path.slice(0, -1);
        if (!isObject(getAt(body, parent))) return false;
        // An array breaker of maxItems needs the array there to copy an item from.
        if (b.broke === 'maxItems')
          return Array.isArray(getAt(body, b.path)) && (getAt(body, b.path) as unknown[]).length > 0;
        return true;
      });
      if (usable.length === 0) return undefined;
      const b = usable[n % usable.length];
      b.apply(body);
      return { body, path: b.path.join('.'), broke: b.broke };
    })
    .filter((x): x is BrokenBody => x !== undefined);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function getAt(body: unknown, path: string[]): unknown {
  return path.reduce<unknown>((at, key) => (isObject(at) ? at[key] : undefined), body);
}
function setAt(body: Record<string, unknown>, path: string[], value: unknown): void {
  const parent = getAt(body, path.slice(0, -1));
  if (isObject(parent)) parent[path[path.length - 1]] = value;
}
function deleteAt(body: Record<string, unknown>, path: string[]): void {
  const parent = getAt(body, path.slice(0, -1));
  if (isObject(parent)) delete parent[path[path.length - 1]];
}
