import { ArgumentsHost, BadRequestException, HttpException, Logger, NotFoundException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { ProblemDetailsFilter, problemBody, toProblem } from './problem-details.filter';
import { ConflictProblem, TooManyRequestsProblem } from './problems';

const INTERNAL = {
  problem: {
    status: 500,
    code: 'internal_error',
    title: 'Internal server error',
    detail: 'An unexpected error occurred; it has been logged',
  },
  internal: true,
};

function pgError(code: string, extra: Record<string, unknown> = {}): QueryFailedError {
  const driverError = Object.assign(new Error('duplicate key value violates unique constraint "users_email_key"'), {
    code,
    ...extra,
  });
  return new QueryFailedError('INSERT INTO "users" ("email") VALUES ($1)', ['a@example.com'], driverError);
}

describe('toProblem', () => {
  it('turns an unknown error into a bare 500 that says nothing of it', () => {
    const err = new Error('connect ECONNREFUSED 10.0.0.5:5432 at /srv/app/dist/db.js:12 SELECT secret FROM keys');
    const result = toProblem(err, '/api/v2/sites');
    expect(result).toEqual(INTERNAL);
    expect(JSON.stringify(problemBody(result.problem))).not.toMatch(/ECONNREFUSED|10\.0\.0\.5|\/srv|SELECT|secret/);
  });

  it.each([
    ['a string', 'boom'],
    ['null', null],
    ['an object', { message: 'SELECT 1' }],
    ['a 500 HttpException', new HttpException('database password is hunter2', 500)],
    ['a 502 HttpException', new HttpException('upstream 10.0.0.7 failed', 502)],
  ])('treats %s as internal', (_label, thrown) => {
    expect(toProblem(thrown, '/x')).toEqual(INTERNAL);
  });

  it('maps a unique violation (23505) to a 409 duplicate without the SQL or the constraint', () => {
    const result = toProblem(
      pgError('23505', { constraint: 'users_email_key', detail: 'Key (email)=(a@example.com) already exists.' }),
      '/x',
    );
    expect(result).toEqual({
      problem: {
        status: 409,
        code: 'duplicate',
        title: 'Conflict',
        detail: 'A resource with the same unique value already exists',
      },
      internal: false,
    });
    expect(JSON.stringify(problemBody(result.problem))).not.toMatch(/users_email_key|a@example\.com|INSERT/);
  });

  it.each([
    ['23503', 409, 'reference_conflict'],
    ['40P01', 409, 'concurrent_update'],
    ['40001', 409, 'concurrent_update'],
    ['22P02', 400, 'invalid_value'],
    ['22003', 400, 'invalid_value'],
    ['22001', 400, 'invalid_value'],
  ])('maps postgres error %s to %i %s', (code, status, problemCode) => {
    const { problem, internal } = toProblem(pgError(code), '/x');
    expect({ status: problem.status, code: problem.code, internal }).toEqual({
      status,
      code: problemCode,
      internal: false,
    });
  });

  it('keeps other postgres errors internal (a bug, not the client)', () => {
    expect(toProblem(pgError('42P01'), '/x')).toEqual(INTERNAL);
    expect(toProblem(pgError('53300'), '/x')).toEqual(INTERNAL);
  });

  it('names a missing route', () => {
    expect(toProblem(new NotFoundException('Cannot GET /x'), '/x')).toEqual({
      problem: { status: 404, code: 'route_not_found', title: 'Not found', detail: 'No route GET /x' },
      internal: false,
    });
    expect(toProblem(new HttpException('Cannot DELETE /api/v2/nothing', 404), '/api/v2/nothing').problem).toEqual({
      status: 404,
      code: 'route_not_found',
      title: 'Not found',
      detail: 'No route DELETE /api/v2/nothing',
    });
  });

  it('keeps a plain 404 a not_found', () => {
    expect(toProblem(new NotFoundException(), '/x').problem).toEqual({
      status: 404,
      code: 'not_found',
      title: 'Not found',
      detail: 'Not Found',
    });
  });

  it('renders framework exceptions by status, keeping only a string message', () => {
    expect(toProblem(new BadRequestException(['a must be a string', 'b is required']), '/x').problem).toEqual({
      status: 400,
      code: 'bad_request',
      title: 'Bad request',
      detail: undefined,
    });
    expect(toProblem(new HttpException('I am a teapot', 418), '/x').problem).toEqual({
      status: 418,
      code: 'error',
      title: 'Error',
      detail: 'I am a teapot',
    });
  });

  it('passes problems through with their code, errors and headers', () => {
    expect(toProblem(new ConflictProblem('last_key', 'Create another key first'), '/x')).toEqual({
      problem: {
        status: 409,
        code: 'last_key',
        title: 'Conflict',
        detail: 'Create another key first',
        errors: undefined,
        headers: undefined,
      },
      internal: false,
    });
    expect(toProblem(new TooManyRequestsProblem(7), '/x').problem).toEqual(
      expect.objectContaining({
        status: 429,
        code: 'rate_limited',
        headers: { 'Retry-After': '7' },
      }),
    );
  });
});

describe('problemBody', () => {
  it('derives the type from the code and leaves out what is absent', () => {
    expect(problemBody({ status: 404, code: 'site_not_found', title: 'Not found' })).toEqual({
      type: '/problems/site-not-found',
      title: 'Not found',
      status: 404,
      code: 'site_not_found',
    });
    expect(
      problemBody(
        {
          status: 400,
          code: 'validation_failed',
          title: 'Validation failed',
          detail: '1 field is invalid',
          errors: [{ path: 'a', message: 'b' }],
        },
        'req-1',
      ),
    ).toEqual({
      type: '/problems/validation-failed',
      title: 'Validation failed',
      status: 400,
      detail: '1 field is invalid',
      code: 'validation_failed',
      errors: [{ path: 'a', message: 'b' }],
      requestId: 'req-1',
    });
  });
});

describe('ProblemDetailsFilter', () => {
  function fakeHost(headersSent = false) {
    const res = {
      headersSent,
      headers: {} as Record<string, string>,
      statusCode: 0,
      contentType: '',
      body: undefined as string | undefined,
      setHeader(name: string, value: string) {
        this.headers[name] = value;
        return this;
      },
      status(code: number) {
        this.statusCode = code;
        return this;
      },
      type(t: string) {
        this.contentType = t;
        return this;
      },
      send(body: string) {
        this.body = body;
        return this;
      },
    };
    const req = { id: 'req-42', method: 'GET', path: '/x', originalUrl: '/x?y=1' };
    const host = {
      switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }),
    } as unknown as ArgumentsHost;
    return { host, res };
  }

  it("writes problem+json with the request id and the problem's headers", () => {
    const { host, res } = fakeHost();
    new ProblemDetailsFilter().catch(new TooManyRequestsProblem(3), host);
    expect(res.statusCode).toBe(429);
    expect(res.contentType).toBe('application/problem+json');
    expect(res.headers).toEqual({ 'Retry-After': '3' });
    expect(JSON.parse(res.body!)).toEqual({
      type: '/problems/rate-limited',
      title: 'Too many requests',
      status: 429,
      detail: 'Retry after 3 s',
      code: 'rate_limited',
      requestId: 'req-42',
    });
  });

  it('logs an internal error with the request id (not the URL, which may hold a token) and sends nothing of it', () => {
    const log = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { host, res } = fakeHost();
    const err = new Error('stack me');
    new ProblemDetailsFilter().catch(err, host);
    expect(log).toHaveBeenCalledWith({ err, requestId: 'req-42', method: 'GET' }, 'Unhandled error');
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('stack me');
    log.mockRestore();
  });

  it('does not write when the response has already started', () => {
    const { host, res } = fakeHost(true);
    new ProblemDetailsFilter().catch(new NotFoundException(), host);
    expect(res.statusCode).toBe(0);
    expect(res.body).toBeUndefined();
  });
});
