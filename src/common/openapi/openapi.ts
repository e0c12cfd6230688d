import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, OperationObject, ParameterObject, SwaggerModule } from '@nestjs/swagger';
import { ProblemDto } from '../errors/api-problems.decorator';
import { deriveRequestSchemas } from './openapi-derive';
import { checkOperationIds } from './openapi-handlers';
import { operationInputs } from './openapi-inputs';
import { documentProblemCodes } from './openapi-problems';
import { PERMISSION_EXTENSION, PUBLISHABLE_EXTENSION } from '../http/route-access';
import { BODY_EXAMPLE } from '../http/route.decorator';
import { DOCUMENT_URL, swaggerUiInit } from './swagger-ui-init';
import { docsAssets } from './docs-assets';

/** The interface's groups in its order (v1, then v2), then the operator routes and health. */
const TAGS: Array<[string, string]> = [
  ['v1 legacy', 'Version 1 routes (x-api-key)'],
  ['API keys', 'Secret keys of the account (v2)'],
  ['Account', 'Account deletion (v2)'],
  ['Newsletter', 'Campaigns, lists, series, subscriptions, tracking'],
  ['Site users', 'Members of a site: OTP sign-in, profile, credits, subscriptions'],
  ['Media', 'Media library, categories and tags'],
  ['Content', 'Pages and posts, revisions'],
  ['Email', 'Sending and templates'],
  ['Collections', 'Curated collections of content'],
  ['Orders', 'Orders and fulfillment'],
  ['Categories', 'Product categories'],
  ['Products', 'Catalog products'],
  ['Contacts', 'Contact form submissions'],
  ['Webhooks', 'Signed outgoing webhooks'],
  // new:module: tags above (every controller's tag is one of these, in the document's order)
  ['Admin: sites', 'Create and list sites (admin, outside the interface)'],
  ['Admin: sender domains', 'Domains an account verified to send From, DKIM-signed (admin, outside the interface)'],
  ['Admin: email providers', 'Bounce and complaint webhooks of the relay, signed by it (admin, outside the interface)'],
  ['Admin: payments', 'A site’s Stripe connection and Stripe’s signed events (admin, outside the interface)'],
  ['Health', 'Liveness and readiness'],
];

/** Each app's document, built once: its routes and their metadata are fixed once the app is created. */
const documents = new WeakMap<INestApplication, OpenAPIObject>();

/**
 * The app's OpenAPI document, built at its first call and the same object after it (Swagger UI
 * serves it, the tests check every answer against it): treat it as read-only.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  let document = documents.get(app);
  if (!document) documents.set(app, (document = createOpenApiDocument(app)));
  return document;
}

function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Sitebase API')
    .setDescription(
      'Multi-tenant content, commerce and newsletter backend. Two versions side by side: `/v1` (x-api-key) and `/api/v2`. ' +
        'Errors are RFC 9457 problem details (`application/problem+json`).',
    )
    .setVersion('2.0')
    .setLicense('MIT', 'https://opensource.org/license/mit')
    // Relative: Swagger UI calls the origin its page came from (127.0.0.1, a LAN address, a
    // proxy's name), which the /docs CSP allows; an absolute PUBLIC_BASE_URL works only when the
    // page was opened at exactly that origin. Clients name their base URL themselves.
    .addServer('/', 'The server this document was read from')
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'x-api-key',
        description:
          'API key: secret (sb_live_…), or publishable (sb_pub_…) on the operations marked x-sitebase-publishable',
      },
      'apiKey',
    )
    // bearerFormat is set because Swagger otherwise labels both schemes "JWT"; neither is one.
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'API key', description: 'Secret API key as a bearer token (v2)' },
      'bearer',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque token',
        description: 'Site-user session token from verify-otp',
      },
      'session',
    );
  for (const [name, description] of TAGS) builder.addTag(name, description);
  checkOperationIds(app, operationId);
  const document = SwaggerModule.createDocument(app, builder.build(), {
    extraModels: [ProblemDto],
    operationIdFactory: operationId,
  });
  document.info.contact = { name: 'Sitebase maintainers' };
  deriveRequestSchemas(document, operationInputs(app, operationId));
  documentProblemCodes(document, app, operationId);
  const used = new Set<string>();
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      // Public operations say so (`security: []`) rather than leaving it to the reader.
      op.security ??= [];
      for (const requirement of op.security) for (const name of Object.keys(requirement)) used.add(name);
      for (const param of op.parameters ?? []) if ('in' in param) exampleAsText(param);
      bodyExampleOnBody(op);
      if (method === 'post') slugLeftOut(document, op);
      describePermission(op);
    }
  }
  // A scheme no operation uses yet (the site users' session) appears with its first route.
  const schemes = document.components?.securitySchemes ?? {};
  for (const name of Object.keys(schemes)) if (!used.has(name)) delete schemes[name];
  return document;
}

/**
 * Swagger UI's "Try it out" fills each parameter with its example and sends it: an optional
 * filter's example would filter every first try. Optional parameters show theirs in the
 * description instead; required ones (the site's name) keep it, so the field comes filled.
 */
function exampleAsText(param: ParameterObject): void {
  if (param.required) return;
  const schema = param.schema && !('$ref' in param.schema) ? param.schema : undefined;
  const example: unknown = param.example ?? schema?.example;
  if (example === undefined) return;
  delete param.example;
  if (schema) delete schema.example;
  const text = `Example: \`${typeof example === 'string' ? example : JSON.stringify(example)}\``;
  param.description = param.description ? `${param.description}. ${text}` : text;
}

/**
 * A create whose body takes an optional `slug` (the server makes a free one from the title or
 * name when it is absent) gets a whole-body example of its properties' examples without the
 * slug: Swagger UI sends the example or every property's, and a slug example would answer 409
 * `duplicate_slug` the second time "Execute" is pressed. A route's own `bodyExample` is kept.
 */
function slugLeftOut(document: OpenAPIObject, op: OperationObject): void {
  const body = op.requestBody && 'content' in op.requestBody ? op.requestBody : undefined;
  const media = body?.content['application/json'];
  const ref = media?.schema && '$ref' in media.schema ? media.schema.$ref : undefined;
  if (!media || media.example !== undefined || !ref) return;
  const found = document.components?.schemas?.[ref.slice(ref.lastIndexOf('/') + 1)];
  const schema = found && !('$ref' in found) ? found : undefined;
  const properties = schema?.properties ?? {};
  const slug = properties.slug;
  if (!slug || !('example' in slug) || schema?.required?.includes('slug')) return;
  const examples = Object.entries(properties).flatMap(([name, p]): Array<[string, unknown]> =>
    name !== 'slug' && 'example' in p && p.example !== undefined ? [[name, p.example]] : [],
  );
  // The required fields first (a subclass declares them last), as a person reads a body.
  const required = new Set(schema?.required);
  media.example = Object.fromEntries([
    ...examples.filter(([n]) => required.has(n)),
    ...examples.filter(([n]) => !required.has(n)),
  ]);
}

/** A route's `bodyExample` (route.decorator.ts) becomes the example of each of its body's media types. */
function bodyExampleOnBody(op: OperationObject): void {
  const extended = op as OperationObject & Record<string, unknown>;
  const example = extended[BODY_EXAMPLE];
  if (example === undefined) return;
  delete extended[BODY_EXAMPLE];
  const body = op.requestBody && !('$ref' in op.requestBody) ? op.requestBody : undefined;
  for (const media of Object.values(body?.content ?? {})) media.example = example;
}

/** The permission a key needs (`x-sitebase-permission`, from @Route) said in the operation's description too. */
function describePermission(op: OperationObject): void {
  const extended = op as OperationObject & Record<string, unknown>;
  const permission = extended[PERMISSION_EXTENSION];
  const notes: string[] = [];
  if (typeof permission === 'string') {
    const publicToo = op.security?.some((requirement) => Object.keys(requirement).length === 0);
    notes.push(
      publicToo
        ? `A key counts here with the \`${permission}\` permission; without it, it reads as no key.`
        : `A key needs the \`${permission}\` permission (without it: 403 \`insufficient_permission\`).`,
    );
  }
  if (extended[PUBLISHABLE_EXTENSION] === true)
    notes.push('A publishable key (`sb_pub_…`) may call it, from its allowed origins; it sees what anyone sees.');
  if (!notes.length) return;
  const note = notes.join(' ');
  op.description = op.description ? `${op.description.replace(/\.?$/, '.')} ${note}` : note;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * The operation id is the handler's name (Immich's style): it is what generated clients call, so
 * a handler is named as the call should read (`listContent`, `deleteMediaTag`, `getHealth`), and
 * renaming one renames its operation. Unique across the app (checked where the document is built).
 */
export function operationId(_controllerKey: string, methodKey: string): string {
  return methodKey;
}

/** Swagger UI at /docs, the document at /docs/openapi.json. */
export function setupOpenApi(app: INestApplication): void {
  const document = buildOpenApiDocument(app);
  // Swagger UI's page names its assets relative to /docs: at /docs/ they would resolve to
  // /docs/docs/… and the page would stay blank.
  app.use(
    (
      req: { method: string; path: string; url: string },
      res: { redirect(status: number, url: string): void },
      next: () => void,
    ) => {
      // The API's root has nothing of its own: a person who opens it is sent to the reference.
      if (req.path === '/' && (req.method === 'GET' || req.method === 'HEAD')) return res.redirect(302, '/docs');
      if (req.path !== '/docs/') return next();
      const q = req.url.indexOf('?');
      res.redirect(301, `/docs${q < 0 ? '' : req.url.slice(q)}`);
    },
  );
  // The page's start script names the document by URL instead of inlining it (swagger-ui-init.ts).
  app.use(swaggerUiInit);
  // The document and the page's large files, compressed once, before the library serves them.
  app.use(docsAssets(() => JSON.stringify(document)));
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: DOCUMENT_URL.slice(1),
    yamlDocumentUrl: 'docs/openapi.yaml',
    customSiteTitle: 'Sitebase API',
  });
}
