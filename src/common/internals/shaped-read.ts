import type { Pool, QueryArrayResult } from 'pg';
import { DataSource, EntityMetadata, ObjectLiteral, QueryFailedError, SelectQueryBuilder } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { FastPathSetting, fastPathOn, Fence, FenceWarning, installedVersion, VersionReader } from './fence';
import { poolOf } from './pg-pool';

/**
 * The fast path of ShapedReads (src/database/fast-read.ts, docs/performance.md): a shape's SQL
 * is taken from TypeORM's builder once, with which named parameter each `$n` takes (the driver's
 * `escapeQueryWithParameters` given markers), and each read then runs it as a named prepared
 * statement straight on the pg pool (`driver.master`), in array row mode, and builds entities
 * with a mapper compiled once from the entity's columns. It relies on TypeORM naming its
 * selections `<alias>_<column>`, on its hydration doing nothing to these entities' columns
 * beyond their transformers (it would to a `date`, `simple-*` or `hstore` column, or for an
 * `@AfterLoad`), and on pg answering in array mode what it answers TypeORM. Held equal to the plain path (TypeORM's
 * getRawAndEntities) by test/foundation/shaped-reads-paths.e2e-spec.ts over every read of every
 * list and get of the API.
 */
export const SHAPED_READS: Fence = {
  name: "The shaped reads' prepared statements (src/common/internals/shaped-read.ts)",
  kind: 'fast path',
  writtenFor: { typeorm: '1.1.1', pg: '8.23.1' },
};

/** What a read answers: entities, and any extra selected values (e.g. a total) of each row. */
export interface ReadRows<E> {
  entities: E[];
  extra: (row: number, name: string) => unknown;
}

/** The SQL with `$n` placeholders, and which named parameter each `$n` takes. */
export interface Statement {
  text: string;
  names: string[];
}

/** One shape's statement, ready to bind and run. */
export interface PreparedRead extends Statement {
  dataSource: DataSource;
  pool: Pool;
  metadata: EntityMetadata;
  alias: string;
  name?: string;
  mapper?: RowMapper;
}

/** How to read one query's raw rows (array mode) into entities and extra values. */
interface RowMapper {
  proto: object;
  columns: Array<{ index: number; prop: string; from?: (value: unknown) => unknown }>;
  extras: Map<string, number>;
}

/** Statements prepared by name, for all readers (on each pooled connection); past this, unnamed. */
const MAX_STATEMENTS = 5000;
let statements = 0;

const fastFor = new WeakMap<DataSource, boolean>();

/**
 * At boot: whether the shaped reads of `dataSource` take the fast path (FAST_PATHS on, and the
 * fence holds; else one warning). A data source never installed reads the plain way.
 */
export function installShapedReads(
  dataSource: DataSource,
  config: FastPathSetting,
  warn: FenceWarning,
  read: VersionReader = installedVersion,
): boolean {
  const on = fastPathOn(SHAPED_READS, config, warn, read);
  fastFor.set(dataSource, on);
  return on;
}

export function shapedReadsFast(dataSource: DataSource): boolean {
  return fastFor.get(dataSource) ?? false;
}

/** The SQL of a builder with `$n` placeholders, and which named parameter each `$n` takes. */
export function statementOf(qb: SelectQueryBuilder<ObjectLiteral>, params: ObjectLiteral, key: string): Statement {
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

/** The statement of one shape; named (prepared once per connection) while `named` and under the cap. */
export function prepareRead(
  qb: SelectQueryBuilder<ObjectLiteral>,
  params: ObjectLiteral,
  key: string,
  named: boolean,
): PreparedRead {
  const mainAlias = qb.expressionMap.mainAlias!;
  const pool = poolOf(qb.connection);
  if (!pool) throw new Error('ShapedReads: the data source is not connected');
  return {
    ...statementOf(qb, params, key),
    dataSource: qb.connection,
    pool,
    metadata: mainAlias.metadata,
    alias: mainAlias.name,
    name: named && statements < MAX_STATEMENTS ? `sb_read_${statements++}` : undefined,
  };
}

/** Binds `params` to the statement, runs it and maps its rows. */
export async function runPrepared<E>(prepared: PreparedRead, params: ObjectLiteral): Promise<ReadRows<E>> {
  const { text, name } = prepared;
  const values: unknown[] = prepared.names.map((n): unknown => params[n]);
  let result: QueryArrayResult<unknown[]>;
  try {
    result = await prepared.pool.query<unknown[]>({ name, text, values, rowMode: 'array' });
  } catch (err) {
    throw new QueryFailedError(text, values, err as Error);
  }
  const mapper = (prepared.mapper ??= compileMapper(
    prepared.metadata,
    prepared.alias,
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
  return { entities, extra: (row, field) => result.rows[row]?.[mapper.extras.get(field) ?? -1] };
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
