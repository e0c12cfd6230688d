import { QueryFailedError } from 'typeorm';
import { describeFailure, retryDelaySeconds } from './outbox-failure';

describe('describeFailure', () => {
  /** A pg DatabaseError as the driver raises it: the message quotes the value it refused. */
  const pgError = (code: string, message: string, extra: Record<string, unknown> = {}) =>
    Object.assign(new Error(message), { code, severity: 'ERROR', ...extra });

  it('gives a database error as its SQLSTATE and constraint, never the statement, parameters or message', () => {
    const err = new QueryFailedError(
      'INSERT INTO contacts (email) VALUES ($1)',
      ['secret@example.com'],
      pgError('23505', 'duplicate key value violates unique constraint "contacts_email_key"', {
        constraint: 'contacts_email_key',
        detail: 'Key (email)=(secret@example.com) already exists.',
      }),
    );
    expect(describeFailure(err)).toBe('database error 23505 (constraint contacts_email_key)');
    const cast = new QueryFailedError(
      'SELECT $1::bigint',
      ['sb_live_x'],
      pgError('22P02', 'invalid input syntax for type bigint: "sb_live_x"'),
    );
    expect(describeFailure(cast)).toBe('database error 22P02');
    expect(describeFailure(pgError('25P02', 'current transaction is aborted'))).toBe('database error 25P02');
  });

  it('gives other errors as their class and the first line of their message, shortened', () => {
    expect(describeFailure(new Error('subscriber failed\n    at somewhere (/srv/app.js:1:1)'))).toBe(
      'Error: subscriber failed',
    );
    expect(describeFailure(new TypeError('x is not a function'))).toBe('TypeError: x is not a function');
    const long = describeFailure(new Error('y'.repeat(1000)));
    expect(long).toHaveLength(300);
    expect(long.endsWith('…')).toBe(true);
    // A system error has a code too, but it is not the database's answer: its message is kept.
    expect(describeFailure(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(
      'Error: read ECONNRESET',
    );
  });

  it('says nothing of a thrown value that is not an Error', () => {
    expect(describeFailure({ password: 'hunter2' })).toBe('a value that is not an Error was thrown');
    expect(describeFailure('sb_live_secret')).toBe('a value that is not an Error was thrown');
  });
});

describe('retryDelaySeconds', () => {
  it('doubles from 2 s and stops at an hour', () => {
    expect([1, 2, 3, 9, 11, 12, 30].map(retryDelaySeconds)).toEqual([2, 4, 8, 512, 2048, 3600, 3600]);
  });
});
