import { applyDecorators, Controller, HttpCode, SetMetadata, Type } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiExtension,
  ApiHeader,
  ApiHeaderOptions,
  ApiOperation,
  ApiParam,
  ApiParamOptions,
  ApiResponse,
  ApiSecurity,
  ApiTags,
  DECORATORS,
  HeadersObject,
  ReferenceObject,
  SchemaObject,
} from '@nestjs/swagger';

import { AdminRoute, AllowedDuringDeletion } from '../auth/decorators';
import { ApiProblem } from '../errors/api-problems.decorator';
import { documentIdempotency, IdempotencyOption } from '../idempotency/idempotent.decorator';
import { MAX_ID } from '../input/dto-rules';
import { FORM_MEDIA_TYPE, TEXT_MEDIA_TYPE } from '../input/request-body';
import { handlerPaths } from '../internals/nest-metadata';
import { Permission, PermissionGroup } from '../auth/permissions';
import { authDecorators, declarePermission, declarePublishable } from './route-access';
import { DeclareBody, RouteBodyOption } from './route-body';
import { answersNotModified, derivedProblems, RouteHandler, SITE_PARAMS } from './route-problems';
import { costDescription, RouteCost } from '../rate-limit/route-costs';

/**
 * Who may call a route; each sets the guard's metadata and the OpenAPI security together.
 * - `key`: a secret key (x-api-key or bearer); the default of every route.
 * - `account-key`: a key that reaches every site of the account (account administration).
 * - `legacy-key`: a secret key in x-api-key only (v1).
 * - `optional-key`: anyone; a key shows more (drafts). Anonymous callers are rate limited by IP.
 * - `session`: a site-user session or a secret key.
 * - `user`: a site-user session only (`/users/me/**`); a key is a 403.
 * - `public`: anyone; no credential is documented.
 */
export type RouteAuth = 'key' | 'account-key' | 'legacy-key' | 'optional-key' | 'session' | 'user' | 'public';

/** A response: its DTO class, or the full options when it needs a schema, headers or a description. */
export type RouteResponse =
  | Type<unknown>
  | { type?: Type<unknown>; schema?: SchemaObject | ReferenceObject; description?: string; headers?: HeadersObject };

export interface RouteOptions {
  auth: RouteAuth;
  summary: string;
  description?: string;
  /** 200 with this body (also on POST actions). */
  ok?: RouteResponse;
  /** 201 with this body; the handler sets Location with created(). */
  created?: RouteResponse;
  /** 202 with this body. */
  accepted?: RouteResponse;
  /** 204, no body (`true`, or the response's description). */
  noContent?: true | string;
  /**
   * Only the problem statuses the route's shape does not give: a business 409 (on a route without
   * Idempotency-Key), 410, 412, 422, 503, ... route-problems.ts derives 400 and 415 on every route,
   * 401/403 for a credential, 404 under a path with parameters, 405, 409 where Idempotency-Key is
   * honoured, 413 for a body or a write and 429 unless never rate limited; ApiController refuses
   * at start-up a derived status listed here.
   */
  problems?: number[];
  /** Path parameters of the method's own path (the controller's are declared by ApiController). */
  params?: ApiParamOptions[];
  headers?: ApiHeaderOptions[];
  /**
   * The request body, where the handler's @Body() parameter does not say it all (a route with
   * neither takes none). One of three shapes, each refusing at compile time what cannot go with it:
   * - `{ upload: schema }`: a multipart form the handler streams itself; nothing else applies.
   * - `{ alsoAs: 'form' }`: the @Body() DTO may also come as an HTML form
   *   (`application/x-www-form-urlencoded`), validated alike; a form is no array and has no raw bytes.
   * - JSON: `optional: Dto` when it may be absent (validated as Dto when present, `{}` when not;
   *   `required: false` in the document), `array: true` beside it when it is a list of them (a
   *   provider's batch of events); `raw: true` when the handler also reads its exact bytes with
   *   @RawBody() (a signature over them); `alsoAs: 'text'` when it may come labelled `text/plain`
   *   (Amazon SNS posts its JSON so; every other route answers that 415).
   */
  body?: RouteBodyOption;
  /**
   * Every POST honours `Idempotency-Key` (`true` says so aloud); `{ optOut: reason }` refuses the
   * header with a 400 and documents why (idempotent.decorator.ts). Not for other methods.
   */
  idempotent?: IdempotencyOption;
  /** An operator route outside the interface: `x-sitebase-admin: true` in OpenAPI. */
  admin?: true;
  /** A write that stays possible while the account's deletion is scheduled. */
  duringDeletion?: true;
  /**
   * The permission a key needs (common/auth/permissions.ts), where the default (the controller's
   * group, `read` for GET and HEAD, `write` otherwise) is not what the route does: a POST that
   * only reads, a GET that changes something.
   */
  permission?: Permission;
  /**
   * A publishable key (`sb_pub_…`) counts here too: a public route a browser calls (subscribe,
   * sign-in; the document then lists the key as optional), or a key route reading published data
   * of a PUBLISHABLE_PERMISSIONS group with no drafts to hide (media). Every optional-key route
   * is publishable without saying so; nothing else is (docs/foundation.md, "Publishable keys").
   */
  publishable?: true;
  /**
   * Expensive work (route-costs.ts): the account's budget of this cost is checked before the
   * handler runs (CostBudgetGuard), and OpenAPI documents the 429 with the budget and
   * `x-sitebase-cost`.
   */
  cost?: RouteCost;
  /**
   * What "Try it out" with the documented examples answers where no example can succeed (a token
   * or code only a mail carries, a signature only the provider makes, DNS records only the
   * operator publishes): the status and why. The document says it in the description and as
   * `x-sitebase-example-answers`; the examples test (docs/openapi.md) expects that status.
   */
  exampleAnswers?: { status: number; because: string };
  /**
   * The whole request body's example, where the properties' own examples cannot make a valid one
   * (a one-of rule: "a shipment or a status"). The document puts it on the body's media types
   * (openapi.ts), where Swagger UI takes it over the properties'.
   */
  bodyExample?: Record<string, unknown>;
}

/** Carries `bodyExample` to the document, which moves it onto the request body (openapi.ts). */
export const BODY_EXAMPLE = 'x-sitebase-body-example';

/** Metadata key under which every route keeps its options (tests check every handler has it). */
export const ROUTE_OPTIONS = 'sitebase:route';

function response(status: number, spec: RouteResponse, headers?: HeadersObject): MethodDecorator & ClassDecorator {
  return typeof spec === 'function'
    ? ApiResponse({ status, type: spec, headers })
    : ApiResponse({ status, ...spec, headers: { ...headers, ...spec.headers } });
}

/** Every create sets it through created() (public-urls.ts); a route that may not says so in its own headers. */
const LOCATION: HeadersObject = {
  Location: { description: 'The URL of what was created', required: true, schema: { type: 'string', format: 'uri' } },
};

/**
 * Declares a route in one place: who may call it (guard metadata and OpenAPI security together),
 * its summary, its success response and status code, and its problem statuses. Use it on every
 * handler, beside the HTTP verb; `docs/modules.md` shows a controller written with it.
 */
export function Route(options: RouteOptions): MethodDecorator {
  const decorators: MethodDecorator[] = [
    SetMetadata(ROUTE_OPTIONS, options),
    ...authDecorators(options.auth),
    // A public route a publishable key may call documents that key, as optional.
    ...(options.auth === 'public' && options.publishable ? [ApiSecurity('apiKey'), ApiSecurity({})] : []),
    ApiOperation({ summary: options.summary, description: describeRoute(options) }),
  ];
  if (options.exampleAnswers)
    decorators.push(ApiExtension('x-sitebase-example-answers', options.exampleAnswers.status));
  if (options.bodyExample) decorators.push(ApiExtension(BODY_EXAMPLE, options.bodyExample));
  if (options.ok) decorators.push(HttpCode(200), response(200, options.ok));
  if (options.created) decorators.push(HttpCode(201), response(201, options.created, LOCATION));
  if (options.accepted) decorators.push(HttpCode(202), response(202, options.accepted));
  if (options.noContent) {
    const description = options.noContent === true ? 'No content' : options.noContent;
    decorators.push(HttpCode(204), ApiResponse({ status: 204, description }));
  }
  for (const param of options.params ?? []) decorators.push(ApiParam(param));
  for (const header of options.headers ?? []) decorators.push(ApiHeader(header));
  const body = options.body ?? {};
  if (body.upload) decorators.push(ApiConsumes('multipart/form-data'), ApiBody({ schema: body.upload }));
  if (body.alsoAs === 'form') decorators.push(ApiConsumes('application/json', FORM_MEDIA_TYPE));
  if (body.alsoAs === 'text') decorators.push(ApiConsumes('application/json', TEXT_MEDIA_TYPE));
  if (body.optional) decorators.push(ApiBody({ type: body.optional, required: false, isArray: !!body.array }));
  // What the body reader reads: the kind of body, from this option and a @Body() parameter.
  decorators.push(DeclareBody(body));
  if (options.admin) decorators.push(AdminRoute());
  if (options.duringDeletion) decorators.push(AllowedDuringDeletion());
  // The cost's 429 carries its budget; the rest of the statuses are derived by ApiController,
  // which sees the whole route (verb, path, parameters, interceptors): route-problems.ts.
  if (options.cost) {
    decorators.push(ApiProblem(429, costDescription(options.cost)), ApiExtension('x-sitebase-cost', options.cost));
  }
  return applyDecorators(...decorators);
}

function describeRoute({ description, exampleAnswers }: RouteOptions): string | undefined {
  if (!exampleAnswers) return description;
  const note = `Try it out with the examples answers ${exampleAnswers.status}: ${exampleAnswers.because}.`;
  return description ? `${description.replace(/\.?$/, '.')} ${note}` : note;
}

/** What ApiController takes besides its path. */
export interface ControllerOptions {
  /** The OpenAPI tag its operations are listed under: a label for readers, which nothing else reads. */
  tag: string;
  /**
   * The permission group of its key routes (common/auth/permissions.ts): a route that names no
   * `permission` needs the group's `read` for GET and HEAD, its `write` otherwise. `'none'` where
   * no route takes that default (public or session-only routes, or each names its own): a key
   * route there without its own `permission` stops the app, and so does a group no route uses.
   */
  permissions: PermissionGroup | 'none';
}

/**
 * A controller, its OpenAPI tag and its permission group, with every parameter of its path
 * declared (the site's name with an example), so no operation under it can leave one out of the
 * document. Once every handler is declared, each key route gets its permission (route-access.ts)
 * and each operation the problem statuses its shape can answer (route-problems.ts): they are
 * derived here, and a route that lists one of them in `problems` stops the app here, so each
 * list says only what the shape cannot.
 */
export function ApiController(path: string, { tag, permissions }: ControllerOptions): ClassDecorator {
  const group = permissions === 'none' ? undefined : permissions;
  const params = [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
  // Method decorators run before the class's: a handler without @Route is caught at start-up.
  const declareRoutes: ClassDecorator = (target) => {
    const proto = (target as unknown as { prototype: Record<string, unknown> }).prototype;
    let groupUsed = false;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const handler = proto[name];
      if (typeof handler !== 'function' || handlerPaths(handler) === undefined) continue;
      const options = Reflect.getMetadata(ROUTE_OPTIONS, handler) as RouteOptions | undefined;
      if (options === undefined) {
        throw new Error(`${target.name}.${name} has no @Route(): declare its auth, summary and responses there`);
      }
      const descriptor = Object.getOwnPropertyDescriptor(proto, name) as PropertyDescriptor;
      groupUsed = declarePermission(target, name, descriptor, options, group) || groupUsed;
      declarePublishable(target, name, descriptor, options);
      const derived = derivedProblems(target, handler as RouteHandler, options, params);
      const twice = options.problems?.find((status) => derived.includes(status));
      if (twice !== undefined) {
        throw new Error(
          `${target.name}.${name} lists problem ${twice}, which its shape already gives (route-problems.ts): remove it from problems`,
        );
      }
      const documented = (Reflect.getMetadata(DECORATORS.API_RESPONSE, handler) ?? {}) as Record<string, unknown>;
      for (const status of [...derived, ...(options.problems ?? [])].sort((a, b) => a - b)) {
        if (!(String(status) in documented)) ApiProblem(status)(proto, name, descriptor);
      }
      if (!('304' in documented) && answersNotModified(handler as RouteHandler, options, params)) {
        ApiResponse({
          status: 304,
          description: 'Not modified: `If-None-Match` names the current ETag (anonymous reads)',
        })(proto, name, descriptor);
      }
    }
    if (group && !groupUsed) {
      throw new Error(
        `${target.name} names permissions '${group}', which none of its routes takes: say permissions: 'none'`,
      );
    }
  };
  return applyDecorators(
    // Each POST's Idempotency-Key, from the policy the interceptor applies (idempotent.decorator.ts).
    documentIdempotency,
    declareRoutes,
    Controller(path),
    ApiTags(tag),
    ...params.map((name) =>
      SITE_PARAMS.has(name)
        ? ApiParam({ name, schema: { type: 'string', example: 'demo' } })
        : ApiParam({ name, schema: { type: 'integer', minimum: 1, maximum: MAX_ID, example: 1 } }),
    ),
  );
}
