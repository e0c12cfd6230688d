import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * First middleware of all: every request gets an id (the caller's `x-request-id` when sane),
 * echoed in the response and in every log line and problem body, even for bodies rejected
 * before routing.
 */
export function requestId(req: Request & { id?: string }, res: Response, next: NextFunction): void {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  req.id = id;
  res.setHeader('x-request-id', id);
  next();
}
