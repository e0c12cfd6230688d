import { HttpException } from '@nestjs/common';
import { Challenge, CHALLENGES } from '../auth/challenges';
import './common.problems';
import { ProblemCode, ProblemCodeOf, ProblemCodes } from './problem-codes';

export interface FieldError {
  path: string;
  message: string;
}

export interface ProblemFields {
  title: string;
  detail?: string;
  errors?: FieldError[];
  /** How many errors there were, when `errors` lists only the first MAX_LISTED_ERRORS. */
  totalErrors?: number;
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>;
}

/** A problem's fields: a declared code with its declared status (problem-codes.ts). */
export type ProblemInit = {
  [C in ProblemCode]: ProblemFields & { code: C; status: ProblemCodes[C] };
}[ProblemCode];

/**
 * The fields of a problem whose code is any of the codes declared with `status`. Sound: such a
 * code's declared status is `status` (TypeScript cannot see it through a union of 20 codes).
 */
export function withStatus<S extends number>(status: S, code: ProblemCodeOf<S>, fields: ProblemFields): ProblemInit {
  return { status, code, ...fields } as ProblemInit;
}

/**
 * An RFC 9457 problem. Services throw the subclasses; the global filter renders
 * them as application/problem+json with a stable snake_case `code`.
 */
export class Problem extends HttpException {
  readonly code: ProblemCode;
  readonly title: string;
  readonly detail?: string;
  readonly errors?: FieldError[];
  readonly totalErrors?: number;
  readonly headers?: Record<string, string>;

  constructor(init: ProblemInit) {
    super(init.detail ?? init.title, init.status);
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.errors = init.errors;
    this.totalErrors = init.totalErrors;
    this.headers = init.headers;
  }
}

export class BadRequestProblem extends Problem {
  constructor(code: ProblemCodeOf<400> = 'bad_request', detail?: string, errors?: FieldError[]) {
    super(withStatus(400, code, { title: 'Bad request', detail, errors }));
  }
}

/** A problem lists at most this many field errors (a 200 kB body can hold 100,000 bad items). */
export const MAX_LISTED_ERRORS = 50;

export class ValidationProblem extends Problem {
  constructor(errors: FieldError[]) {
    const n = errors.length;
    const cut = n > MAX_LISTED_ERRORS;
    super({
      status: 400,
      code: 'validation_failed',
      title: 'Validation failed',
      detail:
        n === 1
          ? '1 field is invalid'
          : `${n} fields are invalid${cut ? `; the first ${MAX_LISTED_ERRORS} are listed` : ''}`,
      errors: cut ? errors.slice(0, MAX_LISTED_ERRORS) : errors,
      ...(cut ? { totalErrors: n } : {}),
    });
  }
}

/** A 401 with its `WWW-Authenticate` challenge: the credentials that would be taken (challenges.ts). */
export class UnauthorizedProblem extends Problem {
  constructor(
    code: ProblemCodeOf<401> = 'unauthorized',
    detail = 'A valid credential is required',
    challenge: Challenge = 'any',
  ) {
    super(
      withStatus(401, code, { title: 'Unauthorized', detail, headers: { 'WWW-Authenticate': CHALLENGES[challenge] } }),
    );
  }
}

export class ForbiddenProblem extends Problem {
  constructor(code: ProblemCodeOf<403> = 'forbidden', detail = 'This credential may not do this') {
    super(withStatus(403, code, { title: 'Forbidden', detail }));
  }
}

export class NotFoundProblem extends Problem {
  constructor(what = 'Resource', code: ProblemCodeOf<404> = 'not_found') {
    super(withStatus(404, code, { title: 'Not found', detail: `${what} not found` }));
  }
}

export class ConflictProblem extends Problem {
  constructor(code: ProblemCodeOf<409>, detail?: string) {
    super(withStatus(409, code, { title: 'Conflict', detail }));
  }
}

export class PreconditionFailedProblem extends Problem {
  constructor(detail = 'The resource changed since it was read (If-Match does not match its ETag)') {
    super({ status: 412, code: 'precondition_failed', title: 'Precondition failed', detail });
  }
}

export class PayloadTooLargeProblem extends Problem {
  constructor(detail = 'The request body is too large') {
    super({ status: 413, code: 'payload_too_large', title: 'Payload too large', detail });
  }
}

export class UnsupportedMediaTypeProblem extends Problem {
  constructor(detail = 'This media type is not accepted') {
    super({ status: 415, code: 'unsupported_media_type', title: 'Unsupported media type', detail });
  }
}

export class TooManyRequestsProblem extends Problem {
  constructor(retryAfterSeconds: number) {
    super({
      status: 429,
      code: 'rate_limited',
      title: 'Too many requests',
      detail: `Retry after ${retryAfterSeconds} s`,
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}
