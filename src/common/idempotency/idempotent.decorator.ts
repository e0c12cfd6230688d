import { RequestMethod } from '@nestjs/common';
import { ApiExtension, ApiHeader, ApiResponse, ApiResponseOptions, DECORATORS } from '@nestjs/swagger';

import { ApiProblems } from '../errors/api-problems.decorator';
import { handlerMethod } from '../internals/nest-metadata';

/** Metadata key of the route options (`@Route`): the same string as route.decorator.ts's ROUTE_OPTIONS. */
const ROUTE_OPTIONS = 'sitebase:route';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** `@Route({ idempotent })`: absent or `true` on a POST honours the header; an opt-out says why. */
export type IdempotencyOption = true | { optOut: string };

/**
 * What a handler does with `Idempotency-Key`: every POST honours it unless its `@Route` opts
 * out with a reason (then the header is a 400, never silently dropped); other methods are
 * idempotent by their nature and `@Route` may not say otherwise.
 */
export type IdempotencyPolicy = { kind: 'honoured'; stream: boolean } | { kind: 'refused'; reason: string } | null;

interface RouteBits {
  idempotent?: IdempotencyOption;
  body?: { upload?: unknown };
}

export function idempotencyPolicy(handler: Function): IdempotencyPolicy {
  const method = handlerMethod(handler);
  const route = Reflect.getMetadata(ROUTE_OPTIONS, handler) as RouteBits | undefined;
  if (method !== RequestMethod.POST) return null;
  const option = route?.idempotent;
  if (option && option !== true) return { kind: 'refused', reason: option.optOut };
  return { kind: 'honoured', stream: route?.body?.upload !== undefined };
}

const HEADER_DESCRIPTION =
  'Makes a retry safe: the same key with the same request replays the first successful answer (status, body, ' +
  '`Location`) with `Idempotent-Replayed: true` and does nothing again, for IDEMPOTENCY_TTL_SECONDS (24 h by ' +
  'default); the same key with another body or on another route is a 409 `idempotency_key_reused`, and while ' +
  'the first is still running a 409 `idempotency_request_in_progress`. Keys belong to the credential (API key ' +
  'or session, or the address of an anonymous caller) and the site. 1 to 255 characters.';

/**
 * Documents every POST of a controller from the same policy the interceptor applies: the header
 * with its bounds, its 400 and 409, and `Idempotent-Replayed` on the success answers; an
 * opted-out POST carries `x-sitebase-idempotency` with its reason and the 400. Also refuses at
 * start-up an `idempotent` option on a route that is not a POST. Runs as a class decorator
 * (after the methods' verbs are known).
 */
export function documentIdempotency(target: { name: string; prototype: object }): void {
  const proto = target.prototype as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const handler = proto[name];
    if (typeof handler !== 'function' || name === 'constructor') continue;
    const route = Reflect.getMetadata(ROUTE_OPTIONS, handler) as RouteBits | undefined;
    const policy = idempotencyPolicy(handler);
    if (!policy) {
      if (route?.idempotent !== undefined && handlerMethod(handler) !== undefined) {
        throw new Error(`${target.name}.${name}: \`idempotent\` applies to POST routes only`);
      }
      continue;
    }
    const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
    const apply = (d: MethodDecorator) => d(proto, name, descriptor);
    if (policy.kind === 'refused') {
      apply(ApiExtension('x-sitebase-idempotency', { honoured: false, reason: policy.reason }));
      apply(ApiProblems(400));
      continue;
    }
    apply(
      ApiHeader({
        name: IDEMPOTENCY_HEADER,
        required: false,
        description: HEADER_DESCRIPTION,
        schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
      }),
    );
    apply(ApiProblems(400, 409));
    for (const decorator of replayHeaderDocs(handler)) apply(decorator);
  }
}

/**
 * `Idempotent-Replayed` on each success answer the handler documents: the same answer declared
 * again with the header added (ApiResponse merges an answer declared twice for one status, and
 * an empty description keeps the first one's).
 */
function replayHeaderDocs(handler: Function): MethodDecorator[] {
  const responses = Reflect.getMetadata(DECORATORS.API_RESPONSE, handler) as
    Record<string, ApiResponseOptions> | undefined;
  return Object.entries(responses ?? {})
    .filter(([status]) => /^2\d\d$/.test(status))
    .map(([status, response]) =>
      ApiResponse({
        ...response,
        status: Number(status),
        description: '',
        headers: {
          ...response.headers,
          [REPLAYED_HEADER]: {
            description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key',
            schema: { type: 'string', enum: ['true'] },
          },
        },
      }),
    );
}
