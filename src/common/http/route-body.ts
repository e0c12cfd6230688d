import { Type } from '@nestjs/common';
import type { SchemaObject } from '@nestjs/swagger';
import { handlerArgs } from '../internals/nest-metadata';

/**
 * What a route reads as its request body, declared with the route (docs/modules.md, "Declaring
 * a route") and kept under Route's own key, where RequestBodyGuard and the derived problem
 * statuses read it:
 * - `json`: a JSON body (the handler has a @Body() parameter, or `body: { optional }`);
 * - `form`: a JSON body, or the same fields as an HTML form posts them (`body: { alsoAs: 'form' }`);
 * - `multipart`: a stream the handler reads itself (`body: { upload }`);
 * - `none`: no body (an empty JSON object is tolerated).
 */
export type BodyKind = 'json' | 'form' | 'multipart' | 'none';

export interface RouteBody {
  kind: BodyKind;
  /** An empty body reads as `{}` (`body: { optional }`). */
  optional: boolean;
  /** The JSON body's exact bytes are kept for @RawBody() (`body: { raw }`). */
  keepRaw: boolean;
  /** The JSON body may be an array (`body: { array }`: a provider's batch of events). */
  array: boolean;
  /** The JSON body may also be labelled `text/plain` (`body: { alsoAs: 'text' }`: Amazon SNS posts JSON so). */
  text: boolean;
}

/** Metadata key of a handler's RouteBody. */
export const ROUTE_BODY = 'sitebase:route-body';

/** A handler that declares nothing reads no body. */
export const NO_BODY: RouteBody = { kind: 'none', optional: false, keepRaw: false, array: false, text: false };

/** Keys a variant of RouteBodyOption may not carry, so that a literal mixing two variants does not compile. */
type Without<K extends string> = { [P in K]?: never };

/**
 * @Route's `body` (RouteOptions says what each shape means): an upload, a JSON body that may also
 * come as a form, or a JSON body with what may go with it. Each shape names what it may not carry.
 */
export type RouteBodyOption =
  | ({ upload: SchemaObject } & Without<'alsoAs' | 'optional' | 'array' | 'raw'>)
  | ({ alsoAs: 'form'; optional?: Type } & Without<'upload' | 'array' | 'raw'>)
  | ({ alsoAs?: 'text'; raw?: true } & Without<'upload'> &
      ({ optional?: Type; array?: never } | { optional: Type; array: true }));

/**
 * Declares the body a handler reads, from @Route's `body` and its parameters: a @Body() parameter
 * makes it JSON. @Route applies it; a test's probe route without @Route may apply it alone.
 * Parameter decorators run before method decorators, so the parameters are known here.
 */
export function DeclareBody(option: RouteBodyOption = {}): MethodDecorator {
  return (target, key, descriptor) => {
    const json = handlerArgs(target.constructor, key).some((arg) => arg.kind === 'body');
    const kind: BodyKind = option.upload
      ? 'multipart'
      : option.alsoAs === 'form'
        ? 'form'
        : json || option.optional
          ? 'json'
          : 'none';
    const body: RouteBody = {
      kind,
      optional: !!option.optional,
      keepRaw: !!option.raw,
      array: !!option.array,
      text: option.alsoAs === 'text' && kind === 'json',
    };
    Reflect.defineMetadata(ROUTE_BODY, body, descriptor.value as object);
  };
}

/** The body a handler declared (NO_BODY when it declared none). */
export function routeBody(handler: Function): RouteBody {
  return (Reflect.getMetadata(ROUTE_BODY, handler) as RouteBody | undefined) ?? NO_BODY;
}
