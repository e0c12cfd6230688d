import { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { FastPathSetting, fastPathOn, Fence, FenceWarning, installedVersion, VersionReader } from './fence';

/**
 * Relies on Nest's ValidationPipe, class-transformer and class-validator answering the same
 * instance for the same input and class every time, and on nothing keeping a reference to the
 * instance they built; checked by test/foundation/input-fast-path.e2e-spec.ts over every param
 * and query class of the app.
 */
export const MEMOIZED_INPUT: Fence = {
  name: 'The params/query memo (src/common/internals/memoized-input.pipe.ts)',
  kind: 'fast path',
  writtenFor: { '@nestjs/common': '12.5.1', 'class-transformer': '0.5.1', 'class-validator': '0.15.1' },
};

/** Per DTO class; the oldest result goes first when full. */
const MAX_PER_TYPE = 2000;
/** Longer inputs are validated every time rather than held. */
const MAX_KEY_LENGTH = 512;
/** Inputs of a class looked up before its hit rate is judged, and the rate below which it is not memoised. */
const JUDGE_AFTER = 2000;
const MIN_HIT_RATE = 0.02;

interface PerClass {
  results: Map<string, unknown>;
  lookups: number;
  hits: number;
  /** Its inputs (a signed token a request) never repeat: memoising them only cost a key and a map entry each. */
  unique: boolean;
}

/**
 * Validation and transformation of query strings and path parameters, memoised: the one fast
 * path of params and queries (docs/performance.md, "Params and queries"). The same `?limit=20`
 * or `:idOrSlug` arrives thousands of times a second on a busy public read, and the pipe costs
 * 10–25 µs a call where a hit costs 1–2 µs; the result is a pure function of the input, its kind
 * and the DTO class, so it is computed once and kept (frozen: a handler cannot change what the
 * next request gets). Bodies are never memoised, and errors are not kept: a bad input is
 * validated, and answered, every time. A class whose inputs do not repeat (under 2 % hits over
 * its first 2,000, as a tracking token's) is then validated without the memo: building keys and
 * churning entries for it was pure cost.
 */
export class MemoizedInputPipe implements PipeTransform {
  private readonly classes = new Map<Function, PerClass>();

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
    let memo = this.classes.get(type);
    if (!memo) this.classes.set(type, (memo = { results: new Map(), lookups: 0, hits: 0, unique: false }));
    if (memo.unique) return this.inner.transform(value, metadata);
    // The kind is part of the key: the pipe checks a query's keys before the class's rules.
    const key = `${metadata.type}:${JSON.stringify(value)}`;
    if (key.length > MAX_KEY_LENGTH) return this.inner.transform(value, metadata);
    const byKey = memo.results;
    memo.lookups += 1;
    const hit = byKey.get(key);
    if (hit !== undefined) {
      memo.hits += 1;
      return hit;
    }
    if (memo.lookups >= JUDGE_AFTER && memo.hits < memo.lookups * MIN_HIT_RATE) {
      memo.unique = true;
      byKey.clear();
      return this.inner.transform(value, metadata);
    }
    const remember = (result: unknown) => {
      if (byKey.size >= MAX_PER_TYPE) byKey.delete(byKey.keys().next().value as string);
      byKey.set(key, typeof result === 'object' && result !== null ? Object.freeze(result) : result);
      return result;
    };
    const result: unknown = this.inner.transform(value, metadata);
    return result instanceof Promise ? result.then(remember) : remember(result);
  }
}

/**
 * The app's global pipe: `plain` behind the memo when fast paths are on and the libraries are
 * the versions the memo was written for, else `plain` alone.
 */
export function inputPipe(
  plain: PipeTransform,
  config: FastPathSetting,
  warn: FenceWarning,
  read: VersionReader = installedVersion,
): PipeTransform {
  return fastPathOn(MEMOIZED_INPUT, config, warn, read) ? new MemoizedInputPipe(plain) : plain;
}
