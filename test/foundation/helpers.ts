import type { Response } from 'supertest';
import { expectProblem } from '../support/problem';

/** The exact body of a problem: every field, with only the request id left open. */
export function problemBody(status: number, code: string, title: string, detail?: string, errors?: unknown[]) {
  return {
    type: `/problems/${code.replace(/_/g, '-')}`,
    title,
    status,
    ...(detail !== undefined ? { detail } : {}),
    code,
    ...(errors !== undefined ? { errors } : {}),
    requestId: expect.any(String),
  };
}

/** expectProblem (status, code, content type, no leaks), then the whole body. */
export function expectExactProblem(
  res: Response,
  status: number,
  code: string,
  title: string,
  detail?: string,
  errors?: unknown[],
): void {
  expectProblem(res, status, code);
  expect(res.body).toEqual(problemBody(status, code, title, detail, errors));
}

export const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/** For last_used_at, which is written off the request path: a key in use may show either. */
export const NULL_OR_ISO = {
  asymmetricMatch: (v: unknown) =>
    v === null || (typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(v)),
  toAsymmetricMatcher: () => 'null or an ISO timestamp',
};
