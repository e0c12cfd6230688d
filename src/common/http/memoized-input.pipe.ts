import { ArgumentMetadata, PipeTransform } from '@nestjs/common';

/** Per DTO class; the oldest result goes first when full. */
const MAX_PER_TYPE = 2000;
/** Longer inputs are validated every time rather than held. */
const MAX_KEY_LENGTH = 512;

/**
 * Validation and transformation of query strings and path parameters, memoised. The same
 * `?limit=20` or `:idOrSlug` arrives thousands of times a second on a busy public read, and
 * class-validator with class-transformer cost more than the rest of a cached read; their result
 * is a pure function of the input and the DTO class, so it is computed once and kept (frozen:
 * a handler cannot change what the next request gets). Bodies are never memoised, and errors
 * are not kept: a bad input is validated, and answered, every time. docs/performance.md.
 */
export class MemoizedInputPipe implements PipeTransform {
  private readonly results = new Map<Function, Map<string, unknown>>();

  constructor(private readonly inner: PipeTransform) {}

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const type = metadata.metatype;
    if (
      (metadata.type !== 'query' && metadata.type !== 'param') ||
      metadata.data !== undefined ||
      !type ||
      typeof value !== 'object' ||
      value === null
    ) {
      return this.inner.transform(value, metadata);
    }
    const key = JSON.stringify(value);
    if (key.length > MAX_KEY_LENGTH) return this.inner.transform(value, metadata);
    let byKey = this.results.get(type);
    if (!byKey) this.results.set(type, (byKey = new Map<string, unknown>()));
    const hit = byKey.get(key);
    if (hit !== undefined) return hit;
    const remember = (result: unknown) => {
      if (byKey.size >= MAX_PER_TYPE) byKey.delete(byKey.keys().next().value as string);
      byKey.set(key, typeof result === 'object' && result !== null ? Object.freeze(result) : result);
      return result;
    };
    const result: unknown = this.inner.transform(value, metadata);
    return result instanceof Promise ? result.then(remember) : remember(result);
  }
}
