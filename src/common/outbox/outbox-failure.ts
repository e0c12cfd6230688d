import { QueryFailedError } from 'typeorm';

/** Seconds the relay waits before an event's next attempt, after its n-th failed one: 2^n, at most an hour. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(3600, 2 ** attempts);
}

const SQLSTATE = /^[0-9A-Z]{5}$/;
const LONGEST = 300;

/**
 * What the relay stores (`last_error`) and logs about a failed delivery of an event: the error's
 * class and the first line of its message, or for a database error only its SQLSTATE and
 * constraint. Never a stack, a statement, its parameters or a database message, which quotes the
 * values it refused (a payload's address, a token).
 */
export function describeFailure(err: unknown): string {
  const pg = databaseError(err);
  if (pg) return `database error ${pg.code}${pg.constraint ? ` (constraint ${pg.constraint})` : ''}`;
  if (!(err instanceof Error)) return 'a value that is not an Error was thrown';
  const text = `${err.name}: ${err.message.split('\n', 1)[0]}`;
  return text.length > LONGEST ? `${text.slice(0, LONGEST - 1)}…` : text;
}

/**
 * True when the statement failed because an earlier one had already aborted the transaction
 * (SQLSTATE 25P02): whoever ran it is not the one to blame.
 */
export function failedEarlier(err: unknown): boolean {
  return databaseError(err)?.code === '25P02';
}

function databaseError(err: unknown): { code: string; constraint?: string } | undefined {
  const driver: unknown = err instanceof QueryFailedError ? err.driverError : err;
  if (typeof driver !== 'object' || driver === null) return undefined;
  const { code, constraint, severity } = driver as { code?: unknown; constraint?: unknown; severity?: unknown };
  if (typeof code !== 'string' || !SQLSTATE.test(code)) return undefined;
  // pg's DatabaseError carries a severity; a Node system error (ECONNRESET) is not a database answer.
  if (!(err instanceof QueryFailedError) && typeof severity !== 'string') return undefined;
  return { code, constraint: typeof constraint === 'string' ? constraint : undefined };
}
