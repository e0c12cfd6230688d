import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { Problem } from '../errors/problems';

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

interface BodyParserError {
  type?: string;
  status?: number;
}

/**
 * Turns body-parser failures into problems right where they happen, so the filter does not have
 * to guess from the framework's re-wrapped 400 (and no parser message reaches the client).
 */
export function bodyParserProblems(err: unknown, _req: Request, _res: Response, next: NextFunction): void {
  const e = err as BodyParserError;
  switch (e?.type) {
    case 'entity.parse.failed':
      return next(new Problem({ status: 400, code: 'malformed_json', title: 'Malformed JSON', detail: 'The request body is not valid JSON' }));
    case 'entity.too.large':
      return next(new Problem({ status: 413, code: 'payload_too_large', title: 'Payload too large', detail: 'The request body is too large' }));
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return next(new Problem({ status: 415, code: 'unsupported_media_type', title: 'Unsupported media type', detail: 'The body encoding or charset is not supported' }));
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
    case 'stream.not.readable':
    case 'parameters.too.many':
      return next(new Problem({ status: 400, code: 'bad_request', title: 'Bad request', detail: 'The request body could not be read' }));
    default:
      return next(err);
  }
}
