import { ValidateBy, ValidationOptions } from 'class-validator';
import { declareSchemaRule } from '../openapi/openapi-rules';

/** Limits of a free-form JSON object a client may store (contact metadata): no free megabytes. */
export interface JsonObjectLimits {
  /** Levels of nesting, the object itself being level 1 (objects and arrays count alike). */
  maxDepth: number;
  /** Its size as JSON text, in UTF-8 bytes. */
  maxBytes: number;
}

/**
 * Why `value` is not a JSON object within `limits`, or null when it is. The body reader has
 * already refused JSON deeper than 32 levels and keys such as `__proto__` (docs/foundation.md,
 * "Input rules"); this bounds what one field may keep in a row.
 */
export function boundedJsonObjectError(value: unknown, limits: JsonObjectLimits): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be a JSON object';
  if (depthOf(value, limits.maxDepth + 1) > limits.maxDepth)
    return `must be nested at most ${limits.maxDepth} levels deep`;
  if (Buffer.byteLength(JSON.stringify(value), 'utf8') > limits.maxBytes)
    return `must be at most ${limits.maxBytes} bytes as JSON`;
  return null;
}

/** The nesting depth of a JSON value (a scalar is 0), counted no further than `stop`. */
function depthOf(value: unknown, stop: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (stop <= 1) return 1;
  let deepest = 0;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    deepest = Math.max(deepest, depthOf(item, stop - 1));
    if (deepest >= stop - 1) break;
  }
  return 1 + deepest;
}

declareSchemaRule('isBoundedJsonObject', ([limits]) => {
  const { maxDepth, maxBytes } = limits as JsonObjectLimits;
  return {
    schema: { type: 'object' },
    described: `At most ${maxDepth} levels deep and ${maxBytes} bytes as JSON.`,
  };
});

/** A free-form JSON object of at most `maxDepth` levels and `maxBytes` bytes as JSON. */
export const IsBoundedJsonObject = (limits: JsonObjectLimits, options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isBoundedJsonObject',
      constraints: [limits],
      validator: {
        validate: (value: unknown) => boundedJsonObjectError(value, limits) === null,
        defaultMessage: (args) => boundedJsonObjectError(args?.value, limits) ?? 'is invalid',
      },
    },
    options,
  );
