import type { Pool, QueryArrayResult } from 'pg';
import { EntityMetadata, ObjectLiteral, QueryFailedError, SelectQueryBuilder } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { ReadShape, shapeKey } from './read-shape';

/** How to read one query's raw rows (array mode) into entities and extra values. */
interface RowMapper {
  proto: object;
  columns: Array<{ index: number; prop: string; from?: (value: unknown) => unknown }>;
  extras: Map<string, number>;
}

/** What a read returns: entities, and any extra selected values (e.g. a total) of each row. */
export interface FastRead<E> {
  entities: E[];
  extra: (row: number, name: string) => unknown;
}

interface Statement {
  /** The SQL with `$n` placeholders, and which named parameter each `$n` takes. */
  text: string;
  names: string[];
}

interface Built extends Statement {
  pool: Pool;
  metadata: EntityMetadata;
  alias: string;
  name?: string;
  mapper?: RowMapper;
}

/** Shapes one reader keeps; past this, further shapes are built every time. */
const MAX_SHAPES = 500;
/** Statements prepared by name, for all readers (on each pooled connection); past this, unnamed. */
const MAX_STATEMENTS = 5000;
let statements = 0;

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
 * Rules: one reader per query; reads outside a transaction, of one entity without relations;
 * `build` branches on its shape only and takes every value by name (`:name`, not `:...spread`)
 * from `params` (limits and offsets are literals in TypeORM's SQL: put them in the shape).
 * Column transformers (ids) are applied; errors are QueryFailedErrors, mapped to problems like
 * any other.
 */
export class ShapedReads<E extends ObjectLiteral> {
  private readonly shapes = new Map<string, Built>();
  private readonly verify: boolean;

  /** `verify` defaults to on in tests (NODE_ENV=test), off elsewhere. */
  constructor(options: { verify?: boolean } = {}) {
    this.verify = options.verify ?? VERIFY_SHAPES;
  }

  async read<S extends ReadShape<S>>(
    shape: S,
    params: ObjectLiteral,
    build: (shape: S) => SelectQueryBuilder<E>,
  ): Promise<FastRead<E>> {
    const key = shapeKey(shape);
    let built = this.shapes.get(key);
    if (!built) {
      const qb = build(shape);
      const mainAlias = qb.expressionMap.mainAlias!;
      const driver = qb.connection.driver as PostgresDriver;
      const keep = this.shapes.size < MAX_SHAPES;
      built = {
        ...statementOf(qb, params, key),
        pool: driver.master as Pool,
        metadata: mainAlias.metadata,
        alias: mainAlias.name,
        name: keep && statements < MAX_STATEMENTS ? `sb_read_${statements++}` : undefined,
      };
      if (keep) this.shapes.set(key, built);
    } else if (this.verify) {
      const again = statementOf(build(shape), params, key);
      if (again.text !== built.text || again.names.join() !== built.names.join())
        throw new Error(
          `ShapedReads: shape ${key} built other SQL than the SQL kept for it: its builder branches on ` +
            `something the shape does not hold; put that in the shape.\nkept:  ${built.text} [${built.names.join()}]` +
            `\nbuilt: ${again.text} [${again.names.join()}]`,
        );
    }
    const text = built.text;
    const values: unknown[] = built.names.map((n): unknown => params[n]);
    let result: QueryArrayResult<unknown[]>;
    try {
      result = await built.pool.query<unknown[]>({ name: built.name, text, values, rowMode: 'array' });
    } catch (err) {
      throw new QueryFailedError(text, values, err as Error);
    }
    const mapper = (built.mapper ??= compileMapper(
      built.metadata,
      built.alias,
      result.fields.map((f) => f.name),
    ));
    const entities = result.rows.map((row) => {
      const entity = Object.create(mapper.proto) as Record<string, unknown>;
      for (const c of mapper.columns) {
        const value: unknown = row[c.index];
        entity[c.prop] = c.from ? c.from(value) : value;
      }
      return entity as E;
    });
    return { entities, extra: (row, name) => result.rows[row]?.[mapper.extras.get(name) ?? -1] };
  }
}

/** The SQL of a builder with `$n` placeholders, and which named parameter each `$n` takes. */
function statementOf(qb: SelectQueryBuilder<ObjectLiteral>, params: ObjectLiteral, key: string): Statement {
  const driver = qb.connection.driver as PostgresDriver;
  // TypeORM numbers the parameters; which name each number takes is read once, from markers.
  const markers = Object.fromEntries(Object.keys(params).map((k) => [k, new ParamMarker(k)]));
  const [text, marked] = driver.escapeQueryWithParameters(qb.getQuery(), markers);
  const names = marked.map((m: unknown) => {
    if (!(m instanceof ParamMarker))
      throw new Error(`ShapedReads: parameter ${String(m)} of shape ${key} is not taken from params`);
    return m.name;
  });
  return { text, names };
}

class ParamMarker {
  constructor(readonly name: string) {}
}

/** Raw columns are `<alias>_<column>`, as TypeORM's query builder names its selections. */
function compileMapper(metadata: EntityMetadata, alias: string, fields: string[]): RowMapper {
  const byKey = new Map(metadata.columns.map((c) => [`${alias}_${c.databaseName}`, c]));
  const mapper: RowMapper = {
    proto: (metadata.target as { prototype: object }).prototype,
    columns: [],
    extras: new Map(),
  };
  fields.forEach((field, index) => {
    const c = byKey.get(field);
    if (!c) {
      mapper.extras.set(field, index);
      return;
    }
    const t = c.transformer;
    const from = Array.isArray(t)
      ? (v: unknown) => t.reduceRight((acc: unknown, x): unknown => x.from(acc), v)
      : t
        ? (v: unknown): unknown => t.from(v)
        : undefined;
    mapper.columns.push({ index, prop: c.propertyName, from });
  });
  return mapper;
}
