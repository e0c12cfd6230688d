import { Type } from '@nestjs/common';
import { handlerArgs } from '../internals/nest-metadata';

/**
 * What a route reads as its request body, declared with the route (docs/modules.md, "Declaring
 * a route") and kept under Route's own key, where RequestBodyGuard and the derived problem
 * statuses read it:
 * - `json`: a JSON body (the handler has a @Body() parameter, or `optionalBody`);
 * - `form`: a JSON body, or the same fields as an HTML form posts them (`formBody`);
 * - `multipart`: a stream the handler reads itself (`upload`);
 * - `none`: no body (an empty JSON object is tolerated).
 */
export type BodyKind = 'json' | 'form' | 'multipart' | 'none';

export interface RouteBody {
  kind: BodyKind;
  /** An empty body reads as `{}` (`optionalBody`). */
  optional: boolean;
  /** The JSON body's exact bytes are kept for @RawBody() (`rawBody`). */
  keepRaw: boolean;
  /** The JSON body may be an array (`jsonArray`: a provider's batch of events). */
  array: boolean;
  /** The JSON body may also be labelled `text/plain` (`textBody`: Amazon SNS posts JSON so). */
  text: boolean;
}

/** Metadata key of a handler's RouteBody. */
export const ROUTE_BODY = 'sitebase:route-body';

/** A handler that declares nothing reads no body. */
export const NO_BODY: RouteBody = { kind: 'none', optional: false, keepRaw: false, array: false, text: false };

/** The options of @Route that say what its body is. */
export interface BodyOptions {
  upload?: unknown;
  formBody?: true;
  optionalBody?: Type;
  rawBody?: true;
  jsonArray?: true;
  textBody?: true;
}

/**
 * Declares the body a handler reads, from `options` and its parameters: a @Body() parameter
 * makes it JSON. @Route applies it; a test's probe route without @Route may apply it alone.
 * Parameter decorators run before method decorators, so the parameters are known here.
 */
export function DeclareBody(options: BodyOptions = {}): MethodDecorator {
  return (target, key, descriptor) => {
    const json = handlerArgs(target.constructor, key).some((arg) => arg.kind === 'body');
    const kind: BodyKind = options.upload
      ? 'multipart'
      : options.formBody
        ? 'form'
        : json || options.optionalBody
          ? 'json'
          : 'none';
    const body: RouteBody = {
      kind,
      optional: !!options.optionalBody,
      keepRaw: !!options.rawBody,
      array: !!options.jsonArray,
      text: !!options.textBody && kind === 'json',
    };
    Reflect.defineMetadata(ROUTE_BODY, body, descriptor.value as object);
  };
}

/** The body a handler declared (NO_BODY when it declared none). */
export function routeBody(handler: Function): RouteBody {
  return (Reflect.getMetadata(ROUTE_BODY, handler) as RouteBody | undefined) ?? NO_BODY;
}
