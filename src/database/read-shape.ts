/** A value that may select a read's SQL: a JSON scalar, so two equal shapes always print alike. */
export type ShapeValue = string | number | boolean | null;

/**
 * What selects the SQL of one shaped read (docs/performance.md): which filters are present, the
 * order, the limit. Interfaces qualify too (`S extends ReadShape<S>`); a string does not.
 */
export type ReadShape<S = Record<string, ShapeValue>> = object & { readonly [K in keyof S]: ShapeValue };

/**
 * The key a shape's SQL is kept under: its fields in sorted order, as JSON. Only JSON scalars
 * are taken; anything else (undefined, NaN, a Date, an array, an object) throws, since it would
 * either print like another value or not print at all, and two shapes would share one SQL.
 */
export function shapeKey(shape: object): string {
  const proto: unknown = typeof shape === 'object' && shape !== null ? Object.getPrototypeOf(shape) : undefined;
  if (proto !== Object.prototype && proto !== null)
    throw new TypeError(`ShapedReads: a shape is a plain object of JSON scalars, not ${kindOf(shape)}`);
  if (Object.getOwnPropertySymbols(shape).length > 0)
    throw new TypeError('ShapedReads: a shape has string keys only (a symbol key would not be part of its key)');
  const fields = shape as Record<string, unknown>;
  let key = '{';
  for (const name of Object.keys(fields).sort()) {
    const value = fields[name];
    // Every request of a list computes this: the cases and the names' JSON are kept cheap.
    let text: string;
    if (typeof value === 'boolean') text = value ? 'true' : 'false';
    else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
    else if (typeof value === 'string') text = JSON.stringify(value);
    else if (value === null) text = 'null';
    else
      throw new TypeError(
        `ShapedReads: shape field "${name}" is ${kindOf(value)}; a shape holds only JSON scalars ` +
          '(a string, a finite number, a boolean or null): say what selects the SQL, e.g. `status: query.status !== undefined`',
      );
    key += `${key.length > 1 ? ',' : ''}${quoted(name)}:${text}`;
  }
  return `${key}}`;
}

/** Field names come from the code: a few dozen, each quoted once. */
const QUOTED = new Map<string, string>();

function quoted(name: string): string {
  let text = QUOTED.get(name);
  if (text === undefined) {
    text = JSON.stringify(name);
    if (QUOTED.size < 1000) QUOTED.set(name, text);
  }
  return text;
}

function kindOf(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'no prototype'})`;
  return `a ${typeof value}`;
}
