import { Writable } from 'node:stream';
import { QueryFailedError } from 'typeorm';
import { LoggingConfig } from '../../config/logging.config';
import { createRootLogger, PinoNestLogger } from './logging';
import { safeError, withoutPaths } from './safe-error';

/** A root logger writing into `lines` (JSON). */
function capture(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, stream };
}

/** A pg error as the driver makes it: SQLSTATE, constraint and a detail quoting the row. */
function pgError(): Error {
  const err = new Error('duplicate key value violates unique constraint "contacts_email_key"');
  Object.assign(err, {
    code: '23505',
    constraint: 'contacts_email_key',
    detail: 'Key (email)=(ada@example.com) already exists.',
  });
  return err;
}

describe('errors in logs (safe-error.ts)', () => {
  it('keeps the type, message, SQLSTATE, constraint and origin; drops the statement, values and detail', () => {
    const failed = new QueryFailedError('INSERT INTO contacts (email) VALUES ($1)', ['ada@example.com'], pgError());
    const logged = safeError(failed);
    expect(logged).toEqual({
      type: 'QueryFailedError',
      message: 'duplicate key value violates unique constraint "contacts_email_key"',
      code: '23505',
      constraint: 'contacts_email_key',
      at: expect.stringMatching(/^safe-error\.spec\.ts:\d+$/),
    });
    expect(JSON.stringify(logged)).not.toMatch(/INSERT|ada@example\.com|Key \(email\)/);
  });

  it('replaces file paths in messages and never writes a stack', () => {
    const fsError = Object.assign(
      new Error("ENOENT: no such file or directory, open '/srv/sitebase/.data/media/1.png'"),
      {
        code: 'ENOENT',
      },
    );
    const logged = safeError(fsError);
    expect(logged.message).toBe("ENOENT: no such file or directory, open '[path]'");
    expect(logged.code).toBe('ENOENT');
    expect(JSON.stringify(logged)).not.toMatch(/\/srv|\n\s+at /);
    expect(withoutPaths('C:\\sitebase\\dist\\main.js failed; file:///opt/app/x.mjs too')).toBe(
      '[path] failed; [path] too',
    );
    expect(safeError('plain text')).toEqual({ type: 'string', message: 'plain text' });
  });

  it('is what every logger line carries for `err`, and what Nest error() calls keep of a stack', () => {
    const { lines, stream } = capture();
    const root = createRootLogger(Object.assign(new LoggingConfig(), { LOG_LEVEL: 'info' }), stream);
    const failed = new QueryFailedError('SELECT secret FROM t WHERE id = $1', [42], pgError());
    root.warn({ err: failed, job: 'x' }, 'Job failed; it will be retried');
    const nest = new PinoNestLogger(root);
    nest.error('Something broke in /srv/sitebase/dist/x.js', failed.stack, 'ExceptionHandler');
    nest.error(failed, 'Queue');
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).not.toMatch(/"stack"|\\n\s+at |SELECT|\/srv\/|node_modules|Key \(email\)/);
    }
    expect(JSON.parse(lines[0]).err).toEqual(expect.objectContaining({ type: 'QueryFailedError', code: '23505' }));
    expect(JSON.parse(lines[1])).toEqual(
      expect.objectContaining({ msg: 'Something broke in [path]', at: expect.stringMatching(/\.spec\.ts:\d+$/) }),
    );
  });
});
