import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { json, text } from 'body-parser';
import type { Request, Response } from 'express';
import { HttpConfig } from '../../config/http.config';
import { RouteFlagCache } from '../auth/route-flags';
import { RouteBody, routeBody } from '../http/route-body';
import { BadRequestProblem, Problem, UnsupportedMediaTypeProblem, ValidationProblem } from '../errors/problems';
import { FORM_BODY } from './dto-rules';
import { forbiddenKeyErrors, jsonDepthExceeds, MAX_JSON_DEPTH, unstorableTextErrors } from './json-body';

/** Where a route that keeps its body's bytes finds them on the request. */
const RAW_BODY = Symbol('sitebase:raw-body');
type WithRawBody = { [RAW_BODY]?: Buffer };

/**
 * The exact bytes of a `body: { raw: true }` route's JSON body, as received (before any parsing): for a
 * signature over them, such as a fulfillment notification's. The body is read, limited and
 * parsed as on every JSON route, so the route answers 413, 415 and 400 exactly as any other.
 */
export const RawBody = createParamDecorator((_: unknown, ctx: ExecutionContext): Buffer => {
  const raw = (ctx.switchToHttp().getRequest<Request>() as Request & WithRawBody)[RAW_BODY];
  if (!raw) throw new Error('@RawBody() on a route without the Route option body: { raw: true }');
  return raw;
});

/** What each route reads, as @Route declared it (route-body.ts), read once per handler. */
const BODY_ROUTES = new RouteFlagCache<RouteBody>((_reflector, [handler]) => routeBody(handler));

/** A request carries a body when it says so: chunked, or a Content-Length other than 0. */
export function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** What an HTML form posts (and RFC 8058 one-click unsubscribes). */
export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';
/** What Amazon SNS labels its JSON with; a JSON body's other name on routes that declare `body: { alsoAs: 'text' }`. */
export const TEXT_MEDIA_TYPE = 'text/plain';
const TEXT_TYPE = /^text\/plain\s*(?:;|$)/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;
const JSON_TYPE = /^application\/(?:[a-z0-9!#$&^_.-]+\+)?json\s*(?:;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/** Throws on bytes that are not UTF-8; a BOM stays in the text, as Buffer#toString kept it. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const missingBody = () => new BadRequestProblem('missing_body', 'This route takes a JSON body');
const malformedJson = (detail = 'The request body is not valid JSON') =>
  new Problem({ status: 400, code: 'malformed_json', title: 'Malformed JSON', detail });
/** The limit is in the detail: a client told only "too large" cannot tell how much to cut. */
const tooLarge = (limit: number) =>
  new Problem({
    status: 413,
    code: 'payload_too_large',
    title: 'Payload too large',
    detail: `The request body is too large: at most ${limit} bytes`,
  });
const unreadable = () => new BadRequestProblem('bad_request', 'The request body could not be read');
const charsetRefused = (what: string) =>
  new UnsupportedMediaTypeProblem(`${what} bodies are read as UTF-8; the charset is not supported`);

/**
 * What the checks on a JSON body's bytes decided before body-parser's JSON.parse: a problem, or,
 * with none, a blank body (a 400, or `{}` where the body is optional).
 */
class Refused extends Error {
  constructor(readonly problem?: Problem) {
    super(problem?.message ?? 'blank body');
  }
}

/**
 * body-parser's `verify` hook for JSON, on the bytes as received: they must be UTF-8 (bytes that
 * are not were read as U+FFFD, a silent change of what was sent), not blank, and not nested too
 * deep, decided on the text before JSON.parse (slow on deep input). A leading BOM, which
 * body-parser drops, stays refused as JSON.parse refused it.
 */
function checkJsonBytes(bytes: Buffer): void {
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    throw new Refused(malformedJson('The request body is not valid UTF-8'));
  }
  if (text.trim() === '') throw new Refused();
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH))
    throw new Refused(
      new BadRequestProblem(
        'json_too_deep',
        `The JSON body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`,
      ),
    );
  if (text.charCodeAt(0) === 0xfeff) throw new Refused(malformedJson());
}

type Parser = ReturnType<typeof json>;

/** Runs a body-parser middleware; its errors reject. */
function parse(parser: Parser, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) =>
    parser(req, res, (err?: Error) => (err === undefined ? resolve() : reject(err))),
  );
}

/**
 * Reads request bodies after the guards before it (AuthGuard, then the limits), so an anonymous
 * caller never gets a body parsed for a route that needs a key, and a limited one is refused
 * first (src/http-pipeline.ts). Interceptors (idempotency) and pipes (validation) see the parsed
 * body. Requests without a body cost no promise. body-parser reads, limits and parses (json for
 * JSON, whichever label the route takes; text for forms); the media type a route takes is decided
 * here, from its declaration, and the checks body-parser does not make are ours.
 */
@Injectable()
export class RequestBodyGuard implements CanActivate {
  /** BODY_LIMIT in bytes, as loadConfigs read it. */
  private readonly limit: number;
  private readonly json: Parser;
  /** The same, keeping the bytes for @RawBody(): only on the routes that declare `body: { raw: true }`. */
  private readonly signedJson: Parser;
  private readonly form: Parser;

  constructor(
    private readonly reflector: Reflector,
    config: HttpConfig,
  ) {
    this.limit = config.BODY_LIMIT;
    // The media type is decided before (any type reaches a parser), and nothing is inflated:
    // refuseContentEncoding answered a compressed body.
    const options = { limit: this.limit, type: () => true, inflate: false };
    // Not strict: a scalar parses, and is refused below naming what the route takes.
    this.json = json({ ...options, strict: false, verify: (_req, _res, bytes) => checkJsonBytes(bytes) });
    this.signedJson = json({
      ...options,
      strict: false,
      verify: (req, _res, bytes) => {
        (req as Request & WithRawBody)[RAW_BODY] = bytes;
        checkJsonBytes(bytes);
      },
    });
    this.form = text(options);
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const route = BODY_ROUTES.get(this.reflector, context);
    if (!hasBody(req)) {
      if (route.kind !== 'json' && route.kind !== 'form') return true;
      if (!route.optional) throw missingBody();
      req.body = {};
      // An optional body's bytes, when none came, are none (a signature over them then fails).
      if (route.keepRaw) (req as Request & WithRawBody)[RAW_BODY] = Buffer.alloc(0);
      return true;
    }
    if (route.kind === 'multipart') return true; // the handler streams it (uploads)
    const res = http.getResponse<Response>();
    if (route.kind === 'none') return this.readNone(req, res).then(() => true);
    if (route.kind === 'form' && FORM_TYPE.test(req.headers['content-type'] ?? ''))
      return this.readForm(req, res).then(() => true);
    return this.readJson(req, res, route).then(() => true);
  }

  /**
   * body-parser reads a body it refuses to its end before it answers; a length declared over the
   * limit is refused at once, so a client that would send it learns before it does.
   */
  private read(parser: Parser, req: Request, res: Response): Promise<void> {
    if (Number(req.headers['content-length']) > this.limit) return Promise.reject(tooLarge(this.limit));
    return parse(parser, req, res);
  }

  /**
   * An HTML form's body (routes that declare it beside JSON): UTF-8 name=value pairs, read with
   * the JSON limit, each name at most once, validated by the route's DTO like JSON. Values are
   * strings; the DTO converts the ones it expects as numbers or booleans (`fromForm`). The pairs
   * are URLSearchParams', not body-parser's urlencoded (qs): qs drops `__proto__` and empty
   * names silently, where a field we do not take is named in a 400.
   */
  private async readForm(req: Request, res: Response): Promise<void> {
    const charset = CHARSET.exec(req.headers['content-type'] ?? '')?.[1].toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw charsetRefused('Form');
    try {
      await this.read(this.form, req, res);
    } catch (err) {
      throw readProblem(err, this.limit);
    }
    if (typeof req.body !== 'string') throw unreadable();
    const body: Record<string, string> = Object.create(null) as Record<string, string>;
    const repeated = new Set<string>();
    for (const [name, value] of new URLSearchParams(req.body)) {
      if (Object.hasOwn(body, name)) repeated.add(name);
      body[name] = value;
    }
    if (repeated.size > 0)
      throw new ValidationProblem([...repeated].map((path) => ({ path, message: 'is given more than once' })));
    const forbidden = forbiddenKeyErrors(body);
    if (forbidden.length) throw new ValidationProblem(forbidden);
    const unstorable = unstorableTextErrors(body);
    if (unstorable.length) throw new ValidationProblem(unstorable);
    const fields: Record<string | symbol, unknown> = { ...body };
    // Its text converts to numbers and booleans where the DTO expects them (fromForm, dto-rules.ts).
    Object.defineProperty(fields, FORM_BODY, { value: true });
    req.body = fields;
  }

  /**
   * A route without a body (publish, restore, cancel, ...) also takes `{}` as JSON, which curl
   * users, Postman and many HTTP clients send with every POST; an object with fields is a 400
   * (each field named), any other media type a 415. The handler sees no body either way.
   */
  private async readNone(req: Request, res: Response): Promise<void> {
    if (!JSON_TYPE.test(req.headers['content-type'] ?? ''))
      throw new UnsupportedMediaTypeProblem('This route takes no request body (or an empty JSON object)');
    await this.readJson(req, res, { optional: true, keepRaw: false, array: false, text: false });
    const fields = Object.keys(req.body as object);
    req.body = undefined;
    if (fields.length > 0)
      throw new ValidationProblem(
        fields.map((path) => ({ path, message: 'is not accepted: this route takes no request body' })),
      );
  }

  private async readJson(
    req: Request,
    res: Response,
    route: Pick<RouteBody, 'optional' | 'keepRaw' | 'array' | 'text'>,
  ): Promise<void> {
    const type = req.headers['content-type'];
    if (type === undefined || !(JSON_TYPE.test(type) || (route.text && TEXT_TYPE.test(type))))
      throw new UnsupportedMediaTypeProblem(
        route.text ? 'This route takes application/json (or JSON as text/plain)' : 'This route takes application/json',
      );
    // UTF-8 only (RFC 8259); body-parser's json would decode UTF-16 and UTF-32 as well.
    const charset = CHARSET.exec(type)?.[1].toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw charsetRefused('JSON');
    // `utf8`, a common spelling of UTF-8 that body-parser refuses, is read as what it means.
    if (charset === 'utf8') req.headers['content-type'] = type.replace(CHARSET, '; charset=utf-8');
    try {
      await this.read(route.keepRaw ? this.signedJson : this.json, req, res);
    } catch (err) {
      if (!(err instanceof Refused) || err.problem) throw readProblem(err, this.limit);
      if (!route.optional) throw missingBody();
      req.body = {};
      return;
    }
    const body: unknown = req.body;
    if (body === undefined) throw unreadable();
    if (body === null || typeof body !== 'object' || (Array.isArray(body) && !route.array))
      throw malformedJson(
        route.array ? 'The request body must be a JSON object or array' : 'The request body must be a JSON object',
      );
    const forbidden = forbiddenKeyErrors(body);
    if (forbidden.length) throw new ValidationProblem(forbidden);
    const unstorable = unstorableTextErrors(body);
    if (unstorable.length) throw new ValidationProblem(unstorable);
  }
}

/** body-parser's failures as problems; anything unexpected stays a 500. */
function readProblem(err: unknown, limit: number): unknown {
  if (err instanceof Refused) return err.problem;
  switch ((err as { type?: string })?.type) {
    case 'entity.too.large':
      return tooLarge(limit);
    case 'entity.parse.failed':
      return malformedJson();
    case 'request.aborted':
    case 'request.size.invalid':
      return unreadable();
    default:
      return err;
  }
}
