import type { NestExpressApplication } from '@nestjs/platform-express';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { buildOpenApiDocument } from '../../src/common/openapi/openapi';
import type { MediaConfig } from '../../src/media/media.config';
import { DocumentValidators, validatorsOf } from './document-validators';
import { countSkipped, countValidated, recordViolation } from './response-check-store';

/**
 * The response check: every answer of an app the tests start (startApp) is held against that
 * app's own OpenAPI document (the one /docs/openapi.json serves, built by the same function):
 * its status is listed for the operation, its content type is the documented one, its body
 * validates against the documented schema (undocumented fields refused), and a 201 or 302
 * carries `Location`. A violation is recorded with the test that caused it, and that test
 * fails in afterEach (response-check.setup.ts). Installed by the test helper only: it wraps
 * the server's request listener, so middleware answers (401, 413, 415) are seen as well.
 * `RESPONSE_CHECK=off` turns it off (to measure what it costs).
 */
export function checkResponses(app: NestExpressApplication, config: MediaConfig): void {
  if (process.env.RESPONSE_CHECK === 'off') return;
  const server = app.getHttpServer();
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  let checker: ResponseChecker | undefined;
  const lazyChecker = () => (checker ??= new ResponseChecker(buildOpenApiDocument(app) as unknown as Document, config));
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    capture(req, res, lazyChecker);
    for (const listener of listeners) listener.call(server, req, res);
  });
}

interface Captured {
  method: string;
  url: string;
  /** Express's matched route (`/api/v2/sites/:siteName/content/:id`), when one matched. */
  route?: string;
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
  /** Bigger than what is kept: only status, type and headers are checked. */
  truncated: boolean;
  test: string;
}

/** Bodies beyond this (file downloads) are checked by status and type only. */
const MAX_BODY = 4 * 1024 * 1024;

type AnyWrite = (...args: unknown[]) => unknown;

function capture(req: IncomingMessage, res: ServerResponse, checker: () => ResponseChecker): void {
  const test = expect.getState().currentTestName ?? '(outside a test: beforeAll or afterAll)';
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  let writtenHeaders: OutgoingHttpHeaders = {};
  const keep = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const buffer =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size > MAX_BODY) truncated = true;
    else chunks.push(buffer);
  };
  const write = res.write.bind(res) as AnyWrite;
  const end = res.end.bind(res) as AnyWrite;
  const writeHead = res.writeHead.bind(res) as AnyWrite;
  // Headers passed to writeHead itself (static files, Swagger UI) are not in getHeaders().
  res.writeHead = ((...args: unknown[]) => {
    const headers = args.find((a) => a && typeof a === 'object' && !Array.isArray(a));
    if (headers) writtenHeaders = { ...writtenHeaders, ...(headers as OutgoingHttpHeaders) };
    return writeHead(...args);
  }) as typeof res.writeHead;
  res.write = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return write(...args);
  }) as typeof res.write;
  let ended = false;
  res.end = ((...args: unknown[]) => {
    if (ended) return end(...args);
    ended = true;
    keep(args[0], args[1]);
    const result = end(...args);
    // Checked as the answer leaves, before the client can read it: the test that is waiting
    // for it is still the current one when afterEach looks.
    const headers = { ...lowerCase(writtenHeaders), ...res.getHeaders() };
    const answer: Captured = {
      method: req.method ?? 'GET',
      url: (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/',
      route: ((req as { route?: { path?: unknown } }).route?.path as string | undefined) ?? undefined,
      status: res.statusCode,
      headers,
      body: Buffer.concat(chunks),
      truncated,
      test,
    };
    try {
      // The bytes seen here are the ones sent: a compressed answer (src/common/http/compression.ts)
      // is checked as the client reads it, decoded.
      if (!truncated) answer.body = decoded(answer.body, headers['content-encoding']);
      checker().check(answer);
    } catch (error) {
      recordViolation(`[${test}] ${answer.method} ${answer.url}: the check itself failed: ${String(error)}`);
    }
    return result;
  }) as typeof res.end;
}

function decoded(body: Buffer, encoding: unknown): Buffer {
  if (encoding === 'gzip') return gunzipSync(body);
  if (encoding === 'br') return brotliDecompressSync(body);
  if (encoding === 'deflate') return inflateSync(body);
  return body;
}

function lowerCase(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

interface DocResponse {
  content?: Record<string, unknown>;
  headers?: Record<string, { required?: boolean }>;
}
interface DocOperation {
  operationId?: string;
  summary?: string;
  responses: Record<string, DocResponse>;
}
interface Document {
  paths: Record<string, Record<string, DocOperation>>;
}

interface Template {
  path: string;
  pattern: RegExp;
  literals: number;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

class ResponseChecker {
  private readonly validators: DocumentValidators;
  /** The document's path templates by segment count, the most literal first. */
  private readonly templates = new Map<number, Template[]>();
  private readonly skipPrefixes: Array<[string, string]>;

  constructor(
    private readonly doc: Document,
    config: MediaConfig,
  ) {
    this.validators = validatorsOf(doc);
    for (const path of Object.keys(doc.paths)) {
      const segments = path.split('/');
      const pattern = new RegExp(
        `^${segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`,
      );
      const list = this.templates.get(segments.length) ?? [];
      list.push({ path, pattern, literals: segments.filter((s) => !s.startsWith('{')).length });
      this.templates.set(segments.length, list);
    }
    for (const list of this.templates.values()) list.sort((a, b) => b.literals - a.literals);
    this.skipPrefixes = [
      ['/docs', 'the document itself and Swagger UI'],
      ['/metrics', 'the Prometheus scrape'],
      [config.MEDIA_PUBLIC_PATH, 'stored files, served as static files'],
    ];
  }

  check(answer: Captured): void {
    const path = answer.url.split('?', 1)[0];
    const method = answer.method.toLowerCase();
    for (const [prefix, reason] of this.skipPrefixes) {
      if (path === prefix || path.startsWith(`${prefix}/`)) return countSkipped(reason);
    }
    if (method === 'head' || method === 'options') {
      return countSkipped('HEAD and OPTIONS (CORS preflight) are not operations of the document');
    }
    const template = answer.route ? answer.route.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}') : this.match(path);
    if (!template) return countSkipped('a path no operation has (404 route_not_found)');
    const item = this.doc.paths[template];
    if (!item) {
      return this.fail(answer, `a route the document does not have (${template})`);
    }
    const operation = METHODS.has(method) ? item[method] : undefined;
    if (!operation) return countSkipped('a method the path does not have (405)');
    // Every route of the app declares @Route (with its summary; routes.e2e-spec checks it): one
    // without is a probe controller a test mounted, documented by nothing but its path.
    if (!operation.summary) return countSkipped("a test's probe route (no @Route)");
    countValidated();
    const status = String(answer.status);
    const label = `${operation.operationId ?? `${method} ${template}`} ${status}`;
    const documented = operation.responses[status];
    if (!documented) {
      return this.fail(
        answer,
        `${label}: a status the document does not list (it lists ${Object.keys(operation.responses).join(', ')})`,
      );
    }
    this.checkHeaders(answer, label, documented);
    this.checkBody(answer, label, template, method, status, documented);
  }

  private checkHeaders(answer: Captured, label: string, documented: DocResponse): void {
    const required = Object.entries(documented.headers ?? {})
      .filter(([, h]) => h.required)
      .map(([name]) => name.toLowerCase());
    // A created resource and a redirect name where it is, unless the document says it may not.
    const location = Object.entries(documented.headers ?? {}).find(([name]) => name.toLowerCase() === 'location');
    if ([201, 302, 303].includes(answer.status) && location?.[1].required !== false) required.push('location');
    for (const name of new Set(required)) {
      if (answer.headers[name] === undefined) this.fail(answer, `${label}: no ${name} header`);
    }
  }

  private checkBody(
    answer: Captured,
    label: string,
    template: string,
    method: string,
    status: string,
    documented: DocResponse,
  ): void {
    const type = String(answer.headers['content-type'] ?? '')
      .split(';', 1)[0]
      .trim()
      .toLowerCase();
    const hasBody = answer.truncated || answer.body.length > 0;
    if (!documented.content) {
      if (hasBody) this.fail(answer, `${label}: a body (${type || 'no content-type'}) the document does not describe`);
      return;
    }
    const types = Object.keys(documented.content);
    if (!documented.content[type]) {
      return this.fail(answer, `${label}: content-type ${type || '(none)'}, documented ${types.join(', ')}`);
    }
    // An image (the newsletter's open pixel) or a cut-off download is checked by its type.
    if (type.startsWith('image/') || answer.truncated) return;
    let body: unknown;
    if (type === 'application/json' || type.endsWith('+json')) {
      try {
        body = JSON.parse(answer.body.toString('utf8'));
      } catch {
        return this.fail(answer, `${label}: ${type} that is not JSON`);
      }
    } else {
      body = answer.body.toString('utf8');
    }
    const validate = this.validators.response(template, method, status, type);
    if (!validate(body)) {
      this.fail(
        answer,
        `${label}: the body breaks its documented schema: ${this.validators.errorsText(validate.errors)}`,
      );
    }
  }

  private match(path: string): string | undefined {
    const list = this.templates.get(path.split('/').length) ?? [];
    return list.find((t) => t.pattern.test(path))?.path;
  }

  private fail(answer: Captured, message: string): void {
    const body = answer.body.toString('utf8').slice(0, 600);
    recordViolation(
      `[${answer.test}] ${answer.method} ${answer.url} → ${answer.status}\n  ${message}\n  body: ${body}`,
    );
  }
}
