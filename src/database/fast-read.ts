import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import {
  prepareRead,
  PreparedRead,
  ReadRows,
  runPrepared,
  shapedReadsFast,
  Statement,
  statementOf,
} from '../common/internals/shaped-read';
import { ReadShape, shapeKey } from './read-shape';

/** What a read returns: entities, and any extra selected values (e.g. a total) of each row. */
export type FastRead<E> = ReadRows<E>;

/** Shapes one reader keeps; past this, further shapes are built every time. */
const MAX_SHAPES = 500;

/**
 * Under NODE_ENV=test (jest sets it), every read builds its shape's SQL again and compares it
 * with the SQL kept for the shape: a builder that branches on anything its shape does not hold
 * fails the first test that reads one shape with two such values. Read once, at load.
 */
const VERIFY_SHAPES = process.env.NODE_ENV === 'test';

/**
 * The hot-path read of one entity (docs/performance.md). TypeORM's query builder writes the SQL,
 * as anywhere else, but once per *shape*: a plain object of what selects the SQL (which filters a
 * request uses, its order, its limit), which `build` receives and branches on, and whose sorted
 * JSON is the key the built SQL is kept under; each request only binds its parameters. The
 * statement runs as a named prepared statement straight on the pool, in pg's array row mode,
 * and the rows become entities through a mapper compiled once, instead of TypeORM's general
 * hydration. On a 20-row list, building and hydrating cost more than the query itself.
 *
 * That is a fenced fast path (src/common/internals/shaped-read.ts): with FAST_PATHS off, or
 * TypeORM or pg another version, each read builds its query and runs it with TypeORM's
 * getRawAndEntities, the same entities and extra values the plain way.
 *
 * Rules: one reader per query; reads outside a transaction, of one entity without relations;
 * `build` branches on its shape only and takes every value by name (`:name`, not `:...spread`)
 * from `params` (limits and offsets are literals in TypeORM's SQL: put them in the shape).
 * Column transformers (ids) are applied; errors are QueryFailedErrors, mapped to problems like
 * any other.
 */
export class ShapedReads<E extends ObjectLiteral> {
  private readonly shapes = new Map<string, PreparedRead>();
  private readonly verify: boolean;
  private readonly plain: boolean;

  /**
   * `verify` defaults to on in tests (NODE_ENV=test), off elsewhere; `plain` takes the plain
   * path whatever the fast paths' switch says (what the differential test compares with).
   */
  constructor(options: { verify?: boolean; plain?: boolean } = {}) {
    this.verify = options.verify ?? VERIFY_SHAPES;
    this.plain = options.plain ?? false;
  }

  async read<S extends ReadShape<S>>(
    shape: S,
    params: ObjectLiteral,
    build: (shape: S) => SelectQueryBuilder<E>,
  ): Promise<FastRead<E>> {
    const key = shapeKey(shape);
    const kept = this.shapes.get(key);
    if (kept && shapedReadsFast(kept.dataSource)) {
      if (this.verify) sameStatement(key, kept, statementOf(build(shape), params, key));
      return runPrepared<E>(kept, params);
    }
    const qb = build(shape);
    if (this.plain || !shapedReadsFast(qb.connection)) return plainRead(qb, params);
    const keep = this.shapes.size < MAX_SHAPES;
    const prepared = prepareRead(qb, params, key, keep);
    if (keep) this.shapes.set(key, prepared);
    return runPrepared<E>(prepared, params);
  }
}

/** The plain path: TypeORM's own query and hydration, every time. */
async function plainRead<E extends ObjectLiteral>(
  qb: SelectQueryBuilder<E>,
  params: ObjectLiteral,
): Promise<FastRead<E>> {
  const { entities, raw } = await qb.setParameters(params).getRawAndEntities<Record<string, unknown>>();
  return { entities, extra: (row, name) => raw[row]?.[name] };
}

function sameStatement(key: string, kept: Statement, built: Statement): void {
  if (built.text === kept.text && built.names.join() === kept.names.join()) return;
  throw new Error(
    `ShapedReads: shape ${key} built other SQL than the SQL kept for it: its builder branches on ` +
      `something the shape does not hold; put that in the shape.\nkept:  ${kept.text} [${kept.names.join()}]` +
      `\nbuilt: ${built.text} [${built.names.join()}]`,
  );
}
