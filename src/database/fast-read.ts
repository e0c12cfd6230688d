import type { Pool, QueryArrayResult } from 'pg';
import { EntityMetadata, ObjectLiteral, QueryFailedError, SelectQueryBuilder } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/** How to read one query's raw rows (array mode) into entities and extra values. */
interface RowShape {
  proto: object;
  columns: Array<{ index: number; prop: string; from?: (value: unknown) => unknown }>;
  extras: Map<string, number>;
}

/** What a read returns: entities, and any extra selected values (e.g. a total) of each row. */
export interface FastRead<E> {
  entities: E[];
  extra: (row: number, name: string) => unknown;
}

interface Built {
  /** The SQL with `$n` placeholders, and which named parameter each `$n` takes. */
  text: string;
  names: string[];
  pool: Pool;
  metadata: EntityMetadata;
  alias: string;
  name?: string;
  shape?: RowShape;
}

/** Shapes one reader keeps; past this, further shapes are built every time. */
const MAX_SHAPES = 500;
/** Statements prepared by name, for all readers (on each pooled connection); past this, unnamed. */
const MAX_STATEMENTS = 5000;
let statements = 0;

/**
 * The hot-path read of one entity (docs/performance.md). TypeORM's query builder writes the SQL,
 * as anywhere else, but once per *shape* (which filters a request uses, its limit): the built SQL
 * is kept under `shape`, and each request only binds its parameters. The statement runs as a
 * named prepared statement straight on the pool, in pg's array row mode, and the rows become
 * entities through a mapper compiled once, instead of TypeORM's general hydration. On a 20-row
 * list, building and hydrating cost more than the query itself.
 *
 * Rules: reads outside a transaction, of one entity without relations; `build` must take every
 * value by name (`:name`, not `:...spread`) from `params`, and nothing else may vary within a
 * shape (limits and offsets are literals in TypeORM's SQL: put them in the shape). Column transformers (ids)
 * are applied; errors are QueryFailedErrors, mapped to problems like any other.
 */
export class ShapedReads<E extends ObjectLiteral> {
  private readonly shapes = new Map<string, Built>();

  async read(shape: string, params: ObjectLiteral, build: () => SelectQueryBuilder<E>): Promise<FastRead<E>> {
    let built = this.shapes.get(shape);
    if (!built) {
      const qb = build();
      const mainAlias = qb.expressionMap.mainAlias!;
      const driver = qb.connection.driver as PostgresDriver;
      const keep = this.shapes.size < MAX_SHAPES;
      // TypeORM numbers the parameters; which name each number takes is read once, from markers.
      const markers = Object.fromEntries(Object.keys(params).map((k) => [k, new ParamMarker(k)]));
      const [text, marked] = driver.escapeQueryWithParameters(qb.getQuery(), markers);
      const names = marked.map((m: unknown) => {
        if (!(m instanceof ParamMarker))
          throw new Error(`ShapedReads: parameter ${String(m)} of shape ${shape} is not taken from params`);
        return m.name;
      });
      built = {
        text,
        names,
        pool: driver.master as Pool,
        metadata: mainAlias.metadata,
        alias: mainAlias.name,
        name: keep && statements < MAX_STATEMENTS ? `sb_read_${statements++}` : undefined,
      };
      if (keep) this.shapes.set(shape, built);
    }
    const text = built.text;
    const values: unknown[] = built.names.map((n): unknown => params[n]);
    let result: QueryArrayResult<unknown[]>;
    try {
      result = await built.pool.query<unknown[]>({ name: built.name, text, values, rowMode: 'array' });
    } catch (err) {
      throw new QueryFailedError(text, values, err as Error);
    }
    const rowShape = (built.shape ??= compileShape(
      built.metadata,
      built.alias,
      result.fields.map((f) => f.name),
    ));
    const entities = result.rows.map((row) => {
      const entity = Object.create(rowShape.proto) as Record<string, unknown>;
      for (const c of rowShape.columns) {
        const value: unknown = row[c.index];
        entity[c.prop] = c.from ? c.from(value) : value;
      }
      return entity as E;
    });
    return { entities, extra: (row, name) => result.rows[row]?.[rowShape.extras.get(name) ?? -1] };
  }
}

class ParamMarker {
  constructor(readonly name: string) {}
}

/** Raw columns are `<alias>_<column>`, as TypeORM's query builder names its selections. */
function compileShape(metadata: EntityMetadata, alias: string, fields: string[]): RowShape {
  const byKey = new Map(metadata.columns.map((c) => [`${alias}_${c.databaseName}`, c]));
  const shape: RowShape = {
    proto: (metadata.target as { prototype: object }).prototype,
    columns: [],
    extras: new Map(),
  };
  fields.forEach((field, index) => {
    const c = byKey.get(field);
    if (!c) {
      shape.extras.set(field, index);
      return;
    }
    const t = c.transformer;
    const from = Array.isArray(t)
      ? (v: unknown) => t.reduceRight((acc: unknown, x): unknown => x.from(acc), v)
      : t
        ? (v: unknown): unknown => t.from(v)
        : undefined;
    shape.columns.push({ index, prop: c.propertyName, from });
  });
  return shape;
}
