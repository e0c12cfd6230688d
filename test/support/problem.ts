import type { Response } from 'supertest';

/** Asserts an RFC 9457 problem with this status and code, and that nothing internal leaks. */
export function expectProblem(res: Response, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toEqual(
    expect.objectContaining({
      type: `/problems/${code.replace(/_/g, '-')}`,
      title: expect.any(String),
      status,
      code,
      requestId: expect.any(String),
    }),
  );
  expect(res.headers['x-request-id']).toBe(res.body.requestId);
  const text = JSON.stringify(res.body);
  expect(text).not.toMatch(/\bat .+\.(ts|js):\d+|node_modules|\/work\/|SELECT |INSERT |QueryFailedError/);
}

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
