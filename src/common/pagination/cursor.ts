import { BadRequestProblem } from '../errors/problems';

export type CursorValue = string | number;

/**
 * A cursor is the sort key of the last row of a page, as base64url JSON
 * (e.g. `[ "2026-01-01T00:00:00.000Z", 42 ]`). Clients treat it as opaque.
 */
export function encodeCursor(values: CursorValue[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/** Decodes a cursor and checks it has the expected shape; anything else is a 400. */
export function decodeCursor(cursor: string, shape: Array<'string' | 'number'>): CursorValue[] {
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(values) || values.length !== shape.length) throw invalidCursor();
  values.forEach((v, i) => {
    if (typeof v !== shape[i] || (typeof v === 'number' && !Number.isSafeInteger(v))) throw invalidCursor();
  });
  return values as CursorValue[];
}

function invalidCursor() {
  return new BadRequestProblem('invalid_cursor', 'The cursor is malformed or belongs to another list', [
    { path: 'cursor', message: 'is not a valid cursor' },
  ]);
}
