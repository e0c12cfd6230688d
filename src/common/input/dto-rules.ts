import { applyDecorators } from '@nestjs/common';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsDate,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  ValidationOptions,
} from 'class-validator';
import { declareSchemaRule } from '../openapi/openapi-rules';

/**
 * One rule per kind of input (docs/foundation.md, "Input rules"). DTOs use these decorators
 * instead of class-transformer's `Number()`/`new Date()` conversions, which accept `0x1`,
 * `1e0`, ` 1`, `true` and years past 9999.
 */

/**
 * Ids are bigint identity columns, but they travel as JSON numbers and the id transformer turns
 * them into JS numbers, so the largest id the API can name is 2^53 - 1.
 */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

const CANONICAL_ID = /^[1-9][0-9]{0,15}$/;

/** A path or query id: canonical decimal digits (no sign, no leading zero, no spaces), 1..MAX_ID. */
export function parseId(text: string): number | null {
  if (!CANONICAL_ID.test(text)) return null;
  const id = Number(text);
  return id <= MAX_ID ? id : null;
}

const ID_MESSAGE = 'must be a positive integer';

/** A path or query parameter that is an id; anything but canonical digits is a 400 naming it. */
export const IsIdParam = () =>
  applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? (parseId(value) ?? value) : value)),
    IsInt({ message: ID_MESSAGE }),
    Min(1, { message: ID_MESSAGE }),
    Max(MAX_ID, { message: ID_MESSAGE }),
  );

/**
 * `idOrSlug`-style parameters: all digits is an id, written without leading zeros
 * (`01` is not another way to write 1). Anything else is a slug; an id too large to exist is
 * simply not found.
 */
declareSchemaRule('isIdOrSlug', { schema: { type: 'string', pattern: '^(?!0[0-9]*$)' } });

export const IsIdOrSlug = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isIdOrSlug',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && !/^0[0-9]*$/.test(value),
        defaultMessage: () => 'must be a slug, or an id written as a positive integer without leading zeros',
      },
    },
    options,
  );

/**
 * A body read from an HTML form (`application/x-www-form-urlencoded`, on routes declaring
 * `body: { alsoAs: 'form' }`) carries this mark: its values are all text, and only there does a
 * field convert text to the number or boolean it stands for. A JSON body gets no conversion: `"1"` is not an integer there,
 * as the document says.
 */
export const FORM_BODY = Symbol('form body');

/** A field's conversion of form text (`toInteger`, `toBoolean`), applied to form bodies only. */
export function fromForm(convert: (params: { value: unknown }) => unknown) {
  return (params: { value: unknown; obj?: unknown }): unknown =>
    typeof params.obj === 'object' && params.obj !== null && FORM_BODY in params.obj ? convert(params) : params.value;
}

/** `true` / `false` as text. */
export function toBoolean({ value }: { value: unknown }): unknown {
  return value === 'true' ? true : value === 'false' ? false : value;
}

/** Canonical decimal integers in paths and queries (limits, offsets): no `+`, `0x`, `1e0` or spaces. */
export function toInteger({ value }: { value: unknown }): unknown {
  return typeof value === 'string' && /^(?:0|-?[1-9][0-9]{0,15})$/.test(value) ? Number(value) : value;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time (`2030-01-01T09:00:00Z`, `2030-01-01T10:00:00.5+01:00`) whose instant
 * lies in the years 0001..9999, the range every layer below (PostgreSQL, pg-boss, ISO output)
 * handles. Fractions beyond milliseconds are cut. Anything else, booleans and numbers
 * included, is null.
 */
export function parseTimestamp(text: string): Date | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads years below 100 as 19xx.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null; // 2024-02-30
  if (!m[8]) {
    const [offsetHours, offsetMinutes] = [Number(m[10]), Number(m[11])];
    if (offsetHours > 23 || offsetMinutes > 59) return null;
    const sign = m[9] === '+' ? 1 : -1;
    date.setTime(date.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
  }
  const utcYear = date.getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999 ? date : null;
}

export const TIMESTAMP_MESSAGE = 'must be an RFC 3339 date-time, e.g. 2024-01-01T00:00:00Z';

/**
 * A date-time field of a body or query (RFC 3339, see parseTimestamp). Combine with
 * @OptionalNotNull() or, for a field that null clears, @IsOptional().
 */
export const IsTimestamp = () =>
  applyDecorators(
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' ? (parseTimestamp(value) ?? value) : value,
    ),
    // IsDate's own message ("a Date instance") names what the parser makes, not what to send.
    IsDate({ message: TIMESTAMP_MESSAGE }),
  );

const presentOnly = (_object: object, value: unknown) => value !== undefined;

/**
 * Whether a @ValidateIf condition only asks that the value be there: @OptionalNotNull()'s, or the
 * one `PartialType(X, { skipNullProperties: false })` gives each field of X (the same rule,
 * another function). The document calls such a field optional, not nullable.
 */
export const isPresenceCheck = (condition: unknown): boolean =>
  condition === presentOnly ||
  (typeof condition === 'function' && asksPresenceOnly(condition as (object: object, value: unknown) => unknown));

function asksPresenceOnly(condition: (object: object, value: unknown) => unknown): boolean {
  try {
    return [undefined, null, 0, '', false].every((value) => condition({}, value) === (value !== undefined));
  } catch {
    return false;
  }
}

/** Like @IsOptional(), but null is validated (and rejected) instead of skipped: these fields have no null. */
export const OptionalNotNull = () => ValidateIf(presentOnly);

/**
 * An array of nested DTOs, validated as deeply as the DTO declares: every element must be an
 * object (class-validator alone lets `[[]]` through, and class-transformer keeps it).
 */
export const NestedArray = (type: () => Function, maxSize: number) =>
  applyDecorators(
    IsArray(),
    ArrayMaxSize(maxSize),
    IsObject({ each: true, message: 'each value must be an object' }),
    ValidateNested({ each: true }),
    Type(type),
  );

/*
 * The list rules below are applied in the order stacked decorators would be (bottom first), so
 * the validation messages stay the ones written in each DTO before.
 */

/** Tags, categories: at most `maxItems` distinct, non-empty strings of at most `maxLength`. */
export const IsWordSet = (maxItems = 100, maxLength = 100) =>
  applyDecorators(
    MaxLength(maxLength, { each: true }),
    IsNotEmpty({ each: true }),
    IsString({ each: true }),
    ArrayUnique(),
    ArrayMaxSize(maxItems),
    IsArray(),
  );

/** Ids of another resource (attachments): at most `maxItems` distinct positive integers. */
export const IsIdSet = (maxItems = 100) =>
  applyDecorators(
    Max(Number.MAX_SAFE_INTEGER, { each: true }),
    Min(1, { each: true }),
    IsInt({ each: true }),
    ArrayUnique(),
    ArrayMaxSize(maxItems),
    IsArray(),
  );
