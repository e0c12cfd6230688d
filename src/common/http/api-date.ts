/**
 * A date-time in an answer (an RFC 3339 string, `toISOString()`): spread into `@ApiProperty`
 * so the document says `format: date-time` and shows an example (a property's own `example`
 * after the spread wins). Request dates get theirs from their validator (`@IsTimestamp`).
 */
export const DATE_TIME = { type: String, format: 'date-time', example: '2026-01-01T00:00:00.000Z' } as const;
