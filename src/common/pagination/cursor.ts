import { BadRequestProblem } from '../errors/problems';

export type CursorValue = string | number;

/**
 * A cursor is the sort key of the last row of a page, as base64url JSON
 * (e.g. `[ "2026-01-01T00:00:00.000Z", 42 ]`). Clients treat it as opaque.
 */
export function encodeCursor(values: CursorValue[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/** What each value of a cursor is: a timestamp is an ISO string as encodeCursor wrote it (years 0001-9999). */
export type CursorShape = 'string' | 'number' | 'timestamp';

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Decodes a cursor and checks it has the expected shape; anything else is a 400. */
export function decodeCursor(cursor: string, shape: CursorShape[]): CursorValue[] {
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(values) || values.length !== shape.length) throw invalidCursor();
  values.forEach((v, i) => {
    // A forged timestamp out of PostgreSQL's range was a 500 (22009) instead of this 400.
    if (shape[i] === 'timestamp') {
      if (
        typeof v !== 'string' ||
        !ISO_TIMESTAMP.test(v) ||
        Number.isNaN(Date.parse(v)) ||
        new Date(v).toISOString() !== v
      )
        throw invalidCursor();
    } else if (typeof v !== shape[i] || (typeof v === 'number' && !Number.isSafeInteger(v))) throw invalidCursor();
  });
  // One spelling a cursor: base64url's unused bits, padding, skipped characters or other JSON
  // (spaces, `1.0`) would name the same page with another text (docs/security.md).
  if (encodeCursor(values as CursorValue[]) !== cursor) throw invalidCursor();
  return values as CursorValue[];
}

function invalidCursor() {
  return new BadRequestProblem('invalid_cursor', 'The cursor is malformed or belongs to another list', [
    { path: 'cursor', message: 'is not a valid cursor' },
  ]);
}
