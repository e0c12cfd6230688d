import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CHALLENGES } from '../auth/challenges';
import { allowedMethods } from '../http/allowed-methods';
import { problemTypeOf } from './problem-pages';
import { problemFromPostgres } from './postgres-errors';
import { FieldError, Problem } from './problems';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: string;
  errors?: FieldError[];
  totalErrors?: number;
  requestId?: string;
}

const TITLES: Record<number, [string, string]> = {
  400: ['Bad request', 'bad_request'],
  401: ['Unauthorized', 'unauthorized'],
  403: ['Forbidden', 'forbidden'],
  404: ['Not found', 'not_found'],
  405: ['Method not allowed', 'method_not_allowed'],
  406: ['Not acceptable', 'not_acceptable'],
  409: ['Conflict', 'conflict'],
  412: ['Precondition failed', 'precondition_failed'],
  413: ['Payload too large', 'payload_too_large'],
  415: ['Unsupported media type', 'unsupported_media_type'],
  422: ['Unprocessable content', 'unprocessable_content'],
  429: ['Too many requests', 'rate_limited'],
};

/** Turns any thrown value into the problem a client may see. Never leaks internals. */
export function toProblem(exception: unknown, path: string): { problem: ProblemInitLike; internal: boolean } {
  if (exception instanceof Problem) {
    const { code, title, detail, errors, totalErrors, headers } = exception;
    return {
      problem: {
        status: exception.getStatus(),
        code,
        title,
        detail,
        errors,
        ...(totalErrors !== undefined ? { totalErrors } : {}),
        headers,
      },
      internal: false,
    };
  }
  const pg = problemFromPostgres(exception);
  if (pg) return toProblem(pg, path);
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status >= 500) return { problem: internalProblem(), internal: true };
    const [title, code] = TITLES[status] ?? ['Error', 'error'];
    const routeMissing = status === 404 && /^Cannot [A-Z]+ /.test(exception.message);
    return {
      problem: {
        status,
        title,
        code: routeMissing ? 'route_not_found' : code,
        detail: routeMissing ? `No route ${exception.message.replace(/^Cannot /, '')}` : safeDetail(exception, path),
      },
      internal: false,
    };
  }
  return { problem: internalProblem(), internal: true };
}

interface ProblemInitLike {
  status: number;
  code: string;
  title: string;
  detail?: string;
  errors?: FieldError[];
  totalErrors?: number;
  headers?: Record<string, string>;
}

function internalProblem(): ProblemInitLike {
  return {
    status: 500,
    code: 'internal_error',
    title: 'Internal server error',
    detail: 'An unexpected error occurred; it has been logged',
  };
}

function safeDetail(e: HttpException, _path: string): string | undefined {
  const response = e.getResponse();
  const message = typeof response === 'string' ? response : (response as { message?: unknown }).message;
  return typeof message === 'string' ? message : undefined;
}

export function problemBody(p: ProblemInitLike, requestId?: string): ProblemBody {
  return {
    // A page about the code answers there (problem-pages.ts).
    type: problemTypeOf(p.code),
    title: p.title,
    status: p.status,
    ...(p.detail ? { detail: p.detail } : {}),
    code: p.code,
    ...(p.errors ? { errors: p.errors } : {}),
    ...(p.totalErrors !== undefined ? { totalErrors: p.totalErrors } : {}),
    ...(requestId ? { requestId } : {}),
  };
}

/**
 * A path that exists with other methods (`PUT …/categories`): 405 with `Allow`, not 404
 * (RFC 9110 §15.5.6). Null when no route has the path.
 */
function methodNotAllowed(req: Request): ProblemInitLike | null {
  const allow = allowedMethods(req);
  if (allow.length === 0) return null;
  return {
    status: 405,
    code: 'method_not_allowed',
    title: 'Method not allowed',
    detail: `${req.method} is not a method of this path; it has ${allow.join(', ')}`,
    headers: { Allow: allow.join(', ') },
  };
}

/** The one place errors become responses. */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Problem');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request & { id?: string }>();
    const res = ctx.getResponse<Response>();
    const { problem: found, internal } = toProblem(exception, req.path);
    const problem = found.code === 'route_not_found' ? (methodNotAllowed(req) ?? found) : found;
    const requestId = req.id !== undefined ? String(req.id) : undefined;
    // No URL here: it may carry a token, and the request's access-log line (same requestId) has
    // it with credentials redacted.
    if (internal) {
      this.logger.error({ err: exception, requestId, method: req.method }, 'Unhandled error');
    } else if (problem.code === 'concurrent_update') {
      // Answered 409, but a deadlock that recurs points at two code paths locking in opposite orders.
      this.logger.warn({ err: exception, requestId, method: req.method }, 'Concurrent update');
    }
    if (res.headersSent) return;
    for (const [name, value] of Object.entries(problem.headers ?? {})) res.setHeader(name, value);
    // RFC 9110 §15.5.2: a 401 names the credentials it takes; one thrown without saying which
    // (Nest's own, a module's) takes every kind.
    if (problem.status === 401 && !res.hasHeader('WWW-Authenticate')) res.setHeader('WWW-Authenticate', CHALLENGES.any);
    res
      .status(problem.status)
      .type(PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(problemBody(problem, requestId)));
  }
}
