/** One invalid field of a 400 problem: where (`lines[0].quantity`, a header or a parameter) and why. */
export interface FieldError {
  path: string;
  message: string;
}

/** An RFC 9457 problem as Sitebase answers it (`application/problem+json`, ProblemDto in the document). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail?: string;
  errors?: FieldError[];
  totalErrors?: number;
  requestId?: string;
}

/** Node's key for a custom `util.inspect` (what `console.log` and an uncaught error print), without importing node:util. */
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/** Field errors named in the message; the rest are counted ("and 3 more"). */
const ERRORS_IN_MESSAGE = 5;

/**
 * A problem answer (4xx/5xx) as an error: the status, the stable `code` to branch on, the
 * invalid fields and the request id to quote to the operator. An answer that is not a problem
 * body (a proxy's HTML page) still becomes one, with code `http_<status>`.
 *
 * What it prints is the problem, not the transport: the message says the status, code, detail
 * and the invalid fields (`400 validation_failed: … (lines[0].quantity: must not be less than
 * 1)`), and `console.log`, an uncaught error and `JSON.stringify` show those fields only. The
 * `Response` stays reachable as `response` (its headers, to read more) but is not enumerable,
 * so it is not printed or serialised with them.
 */
export class SitebaseProblem extends Error {
  override readonly name = 'SitebaseProblem';
  readonly status: number;
  readonly code: string;
  readonly type: string;
  readonly title: string;
  readonly detail?: string;
  readonly errors: FieldError[];
  readonly totalErrors?: number;
  readonly requestId?: string;
  /** The answer it came from (not enumerable: kept out of inspect and JSON). */
  declare readonly response?: Response;
  /** The problem body as answered (not enumerable: its fields are this error's own). */
  declare readonly problem: Problem;

  constructor(problem: Problem, response?: Response) {
    super(messageOf(problem));
    Object.defineProperty(this, 'problem', { value: problem, enumerable: false });
    Object.defineProperty(this, 'response', { value: response, enumerable: false });
    this.status = problem.status;
    this.code = problem.code;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.errors = problem.errors ?? [];
    this.totalErrors = problem.totalErrors;
    this.requestId = problem.requestId;
  }

  /** The problem's fields, for JSON.stringify and loggers. */
  toJSON(): Problem & { name: string } {
    const { type, title, status, code, detail, errors, totalErrors, requestId } = this;
    return { name: this.name, type, title, status, code, detail, errors, totalErrors, requestId };
  }

  /** `console.log(problem)` and an uncaught problem in Node: the message and the fields, then the stack's frames. */
  [INSPECT](): string {
    const { status, code, detail, errors, requestId } = this;
    const fields = JSON.stringify({ status, code, detail, errors, requestId }, null, 2);
    const frames = (this.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at '));
    return [`${this.name}: ${this.message}`, ...frames, fields].join('\n');
  }

  /** The problem of an answer, from its parsed body (openapi-fetch's `error`) and its headers. */
  static from(response: Response, body: unknown): SitebaseProblem {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    if (isProblem(body)) return new SitebaseProblem({ requestId, ...body }, response);
    return new SitebaseProblem(
      {
        type: 'about:blank',
        title: response.statusText || `HTTP ${response.status}`,
        status: response.status,
        code: `http_${response.status}`,
        detail: typeof body === 'string' && body !== '' ? body.slice(0, 500) : undefined,
        requestId,
      },
      response,
    );
  }
}

/** `400 validation_failed: The body is invalid (status: must be one of …; title: …)`. */
function messageOf(problem: Problem): string {
  const head = `${problem.status} ${problem.code}: ${problem.detail ?? problem.title}`;
  const errors = problem.errors ?? [];
  if (errors.length === 0) return head;
  const named = errors.slice(0, ERRORS_IN_MESSAGE).map((e) => `${e.path}: ${e.message}`);
  const more = Math.max(problem.totalErrors ?? errors.length, errors.length) - named.length;
  return `${head} (${named.join('; ')}${more > 0 ? `; and ${more} more` : ''})`;
}

function isProblem(body: unknown): body is Problem {
  const b = body as Partial<Problem> | null;
  return typeof b === 'object' && b !== null && typeof b.code === 'string' && typeof b.status === 'number';
}
