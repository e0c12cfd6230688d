import { Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { toInteger } from '../input/dto-rules';
import { CursorValue, decodeCursor, encodeCursor } from './cursor';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

/** `?limit=&cursor=` of every v2 list. Resource queries extend it with filters. */
export class CursorQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_LIMIT)
  limit: number = DEFAULT_LIMIT;

  @ApiPropertyOptional({ description: 'Opaque cursor from pagination.nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}

export class PaginationDto {
  @ApiProperty({ example: 20 }) limit: number;
  @ApiProperty({ type: String, nullable: true, example: null }) nextCursor: string | null;
}

export interface Page<T> {
  data: T[];
  pagination: { limit: number; nextCursor: string | null };
}

/** Swagger schema for `{ data: T[], pagination }`. */
export function PageDto<T>(item: Type<T>) {
  class PageOf {
    @ApiProperty({ type: [item] }) data: T[];
    @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
  }
  Object.defineProperty(PageOf, 'name', { value: `${item.name.replace(/ResponseDto$|Dto$/, '')}PageDto` });
  return PageOf;
}

export interface KeysetColumn {
  /** Qualified column as used in SQL, e.g. `k.id` or `c.created_at`. */
  expr: string;
  /** Timestamps travel as ISO strings (millisecond precision): declare such columns `timestamptz(3)`. */
  type: 'number' | 'text' | 'timestamp';
}

/**
 * Adds a keyset condition and order to `qb`: rows strictly after the cursor in
 * `(col1, col2, …) DESC` (or ASC) order, and fetches limit + 1 rows to know whether a next page
 * exists. All columns sort the same way, so a row comparison matches a composite index.
 */
export function applyKeyset<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  columns: KeysetColumn[],
  query: CursorQueryDto,
  direction: 'ASC' | 'DESC' = 'DESC',
): SelectQueryBuilder<T> {
  return applyKeysetShape(qb, columns, keysetShape(query), direction).setParameters(keysetParameters(columns, query));
}

/** What a keyset page changes in a query's SQL: a cursor condition or none, and the limit. */
export interface KeysetShape {
  cursor: boolean;
  limit: number;
}

export function keysetShape(query: CursorQueryDto): KeysetShape {
  return { cursor: Boolean(query.cursor), limit: query.limit };
}

/**
 * applyKeyset from a read's shape alone (ShapedReads, docs/performance.md): the same SQL, with
 * the cursor's values left to the parameters `keysetParameters` gives (`keyset_0`, …).
 */
export function applyKeysetShape<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  columns: KeysetColumn[],
  page: KeysetShape,
  direction: 'ASC' | 'DESC' = 'DESC',
): SelectQueryBuilder<T> {
  if (page.cursor) {
    const left = columns.map((c) => c.expr).join(', ');
    const right = columns
      .map((c, i) => (c.type === 'timestamp' ? `CAST(:keyset_${i} AS timestamptz)` : `:keyset_${i}`))
      .join(', ');
    qb.andWhere(`(${left}) ${direction === 'DESC' ? '<' : '>'} (${right})`);
  }
  columns.forEach((c, i) => (i === 0 ? qb.orderBy(c.expr, direction) : qb.addOrderBy(c.expr, direction)));
  return qb.limit(page.limit + 1);
}

/** The parameters applyKeyset binds for the cursor (`keyset_0`, …): none without a cursor. */
export function keysetParameters(columns: KeysetColumn[], query: CursorQueryDto): Record<string, CursorValue> {
  const params: Record<string, CursorValue> = {};
  if (!query.cursor) return params;
  decodeCursor(
    query.cursor,
    columns.map((c) => (c.type === 'text' ? 'string' : c.type)),
  ).forEach((v, i) => (params[`keyset_${i}`] = v));
  return params;
}

/** Cuts the extra row fetched by applyKeyset and builds the list envelope. */
export function keysetPage<E>(rows: E[], limit: number, cursorOf: (row: E) => CursorValue[]): Page<E> {
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  const last = data[data.length - 1];
  return {
    data,
    pagination: { limit, nextCursor: hasMore && last !== undefined ? encodeCursor(cursorOf(last)) : null },
  };
}

const mapped = new WeakMap<object, Map<Function, Page<unknown>>>();

/**
 * Maps the rows of a page to response DTOs (controllers call it with a pure mapper). A page a
 * service serves again from a cache (the same object) is mapped once: mappers are pure and
 * cached pages are never mutated.
 */
export function mapPage<E, R>(page: Page<E>, map: (row: E) => R): Page<R> {
  let byMapper = mapped.get(page);
  const known = byMapper?.get(map);
  if (known) return known as Page<R>;
  const result: Page<R> = { data: page.data.map(map), pagination: page.pagination };
  if (!byMapper) mapped.set(page, (byMapper = new Map<Function, Page<unknown>>()));
  byMapper.set(map, result);
  return result;
}
