import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import getRawBody from 'raw-body';
import { HttpConfig } from '../../config/http.config';
import { RouteFlagCache } from '../auth/route-flags';
import { RouteBody, routeBody } from '../http/route-body';
import { BadRequestProblem, Problem, UnsupportedMediaTypeProblem, ValidationProblem } from '../errors/problems';
import { FORM_BODY } from './dto-rules';
import { forbiddenKeyErrors, jsonDepthExceeds, MAX_JSON_DEPTH, unstorableTextErrors } from './json-body';

/** Where a route that keeps its body's bytes finds them on the request. */
const RAW_BODY = Symbol('sitebase:raw-body');

/**
 * The exact bytes of a `rawBody` route's JSON body, as received (before any parsing): for a
 * signature over them, such as a fulfillment notification's. The body is read, limited and
 * parsed as on every JSON route, so the route answers 413, 415 and 400 exactly as any other.
 */
export const RawBody = createParamDecorator((_: unknown, ctx: ExecutionContext): Buffer => {
  const raw = (ctx.switchToHttp().getRequest<Request>() as Request & { [RAW_BODY]?: Buffer })[RAW_BODY];
  if (!raw) throw new Error('@RawBody() on a route without the Route option rawBody');
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
/** What Amazon SNS labels its JSON with; a JSON body's other name on routes that declare `textBody`. */
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

/**
 * Reads request bodies after the guards before it (AuthGuard, then the public rate limit), so an
 * anonymous caller never gets a body parsed for a route that needs a key, and a limited one is
 * refused first. Registered as the last global guard (AuthModule); interceptors (idempotency)
 * and pipes (validation) see the parsed body. Requests without a body cost no promise.
 */
@Injectable()
export class RequestBodyGuard implements CanActivate {
  /** BODY_LIMIT in bytes, as loadConfigs read it (a number: raw-body reads nothing else into it). */
  private readonly limit: number;

  constructor(
    private readonly reflector: Reflector,
    config: HttpConfig,
  ) {
    this.limit = config.BODY_LIMIT;
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request>();
    const route = BODY_ROUTES.get(this.reflector, context);
    if (!hasBody(req)) {
      if (route.kind !== 'json' && route.kind !== 'form') return true;
      if (!route.optional) throw missingBody();
      req.body = {};
      // An optional body's bytes, when none came, are none (a signature over them then fails).
      if (route.keepRaw) (req as Request & { [RAW_BODY]?: Buffer })[RAW_BODY] = Buffer.alloc(0);
      return true;
    }
    if (route.kind === 'multipart') return true; // the handler streams it (uploads)
    if (route.kind === 'none') return this.readNone(req).then(() => true);
    if (route.kind === 'form' && FORM_TYPE.test(req.headers['content-type'] ?? ''))
      return this.readForm(req).then(() => true);
    return this.readJson(req, route.optional, route.keepRaw, route.array, route.text).then(() => true);
  }

  /**
   * An HTML form's body (routes that declare it beside JSON): UTF-8 name=value pairs, read with
   * the JSON limit, each name at most once, validated by the route's DTO like JSON. Values are
   * strings; the DTO converts the ones it expects as numbers or booleans (`fromForm`).
   */
  private async readForm(req: Request): Promise<void> {
    const charset = CHARSET.exec(req.headers['content-type'] ?? '')?.[1].toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      throw new UnsupportedMediaTypeProblem('Form bodies are read as UTF-8; the charset is not supported');
    }
    let bytes: Buffer;
    try {
      bytes = await getRawBody(req, { length: req.headers['content-length'], limit: this.limit });
    } catch (err) {
      throw readProblem(err);
    }
    const body: Record<string, string> = Object.create(null) as Record<string, string>;
    const repeated = new Set<string>();
    for (const [name, value] of new URLSearchParams(bytes.toString('utf8'))) {
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
  private async readNone(req: Request): Promise<void> {
    if (!JSON_TYPE.test(req.headers['content-type'] ?? ''))
      throw new UnsupportedMediaTypeProblem('This route takes no request body (or an empty JSON object)');
    await this.readJson(req, true, false);
    const fields = Object.keys(req.body as object);
    req.body = undefined;
    if (fields.length > 0)
      throw new ValidationProblem(
        fields.map((path) => ({ path, message: 'is not accepted: this route takes no request body' })),
      );
  }

  private async readJson(
    req: Request,
    optional: boolean,
    keepRaw: boolean,
    array = false,
    asText = false,
  ): Promise<void> {
    const type = req.headers['content-type'];
    if (type === undefined || !(JSON_TYPE.test(type) || (asText && TEXT_TYPE.test(type))))
      throw new UnsupportedMediaTypeProblem(
        asText ? 'This route takes application/json (or JSON as text/plain)' : 'This route takes application/json',
      );
    const charset = CHARSET.exec(type)?.[1].toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      throw new UnsupportedMediaTypeProblem('JSON bodies are read as UTF-8; the charset is not supported');
    }
    let bytes: Buffer;
    try {
      bytes = await getRawBody(req, { length: req.headers['content-length'], limit: this.limit });
    } catch (err) {
      throw readProblem(err);
    }
    if (keepRaw) (req as Request & { [RAW_BODY]?: Buffer })[RAW_BODY] = bytes;
    let text: string;
    try {
      text = STRICT_UTF8.decode(bytes);
    } catch {
      // Bytes that are not UTF-8 were read as U+FFFD before: a silent change of what was sent.
      throw malformedJson('The request body is not valid UTF-8');
    }
    if (text.trim() === '') {
      if (!optional) throw missingBody();
      req.body = {};
      return;
    }
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      throw new BadRequestProblem(
        'json_too_deep',
        `The JSON body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw malformedJson();
    }
    if (body === null || typeof body !== 'object' || (Array.isArray(body) && !array))
      throw malformedJson(
        array ? 'The request body must be a JSON object or array' : 'The request body must be a JSON object',
      );
    const forbidden = forbiddenKeyErrors(body);
    if (forbidden.length) throw new ValidationProblem(forbidden);
    const unstorable = unstorableTextErrors(body);
    if (unstorable.length) throw new ValidationProblem(unstorable);
    req.body = body;
  }
}

/** raw-body failures as problems; anything unexpected stays a 500. */
function readProblem(err: unknown): unknown {
  switch ((err as { type?: string })?.type) {
    case 'entity.too.large':
      return new Problem({
        status: 413,
        code: 'payload_too_large',
        title: 'Payload too large',
        detail: 'The request body is too large',
      });
    case 'request.aborted':
    case 'request.size.invalid':
      return new BadRequestProblem('bad_request', 'The request body could not be read');
    default:
      return err;
  }
}

/**
 * Only `identity` bodies are accepted: the server inflates nothing (a lying `gzip` used to reach
 * zlib and answer 500). A header check, so it runs before credentials and costs nothing to
 * requests without a body.
 */
export function refuseContentEncoding(req: Request, _res: Response, next: NextFunction): void {
  const encoding = req.headers['content-encoding'];
  if (encoding === undefined || !hasBody(req) || /^\s*identity\s*$/i.test(encoding)) return next();
  next(
    new Problem({
      status: 415,
      code: 'unsupported_content_encoding',
      title: 'Unsupported content encoding',
      detail: 'Request bodies are accepted without a Content-Encoding (identity) only',
      headers: { 'Accept-Encoding': 'identity' },
    }),
  );
}

/**
 * Query strings must be UTF-8 percent-encoding: Node's parser read `%FF`, an encoded surrogate
 * (`%ED%A0%80`) or a stray `%` as U+FFFD and the route answered as if that had been sent. A
 * header-like check on the raw URL, before credentials, like the Content-Encoding one.
 */
export function refuseMalformedQuery(req: Request, _res: Response, next: NextFunction): void {
  const start = req.url.indexOf('?');
  if (start < 0) return next();
  for (const pair of req.url.slice(start + 1).split('&')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const decodedName = decodeQueryPart(name);
    if (decodedName === undefined || decodeQueryPart(eq < 0 ? '' : pair.slice(eq + 1)) === undefined) {
      return next(
        new ValidationProblem([{ path: decodedName ?? 'query', message: 'must be UTF-8 text, percent-encoded' }]),
      );
    }
  }
  next();
}

function decodeQueryPart(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
