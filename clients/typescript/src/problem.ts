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

/**
 * A problem answer (4xx/5xx) as an error: the status, the stable `code` to branch on, the
 * invalid fields and the request id to quote to the operator. An answer that is not a problem
 * body (a proxy's HTML page) still becomes one, with code `http_<status>`.
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

  constructor(
    readonly problem: Problem,
    readonly response?: Response,
  ) {
    super(`${problem.status} ${problem.code}: ${problem.detail ?? problem.title}`);
    this.status = problem.status;
    this.code = problem.code;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.errors = problem.errors ?? [];
    this.totalErrors = problem.totalErrors;
    this.requestId = problem.requestId;
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

function isProblem(body: unknown): body is Problem {
  const b = body as Partial<Problem> | null;
  return typeof b === 'object' && b !== null && typeof b.code === 'string' && typeof b.status === 'number';
}
