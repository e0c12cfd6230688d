import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ProblemDto } from '../errors/api-problems.decorator';

const TAGS: Array<[string, string]> = [
  ['API keys', 'Secret keys of the account (v2)'],
  ['Account', 'Account deletion (v2)'],
  ['Admin: sites', 'Create and list sites (admin, outside the interface)'],
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
  ['v1 legacy', 'Version 1 routes (x-api-key)'],
  ['Health', 'Liveness and readiness'],
];

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Sitebase API')
    .setDescription(
      'Multi-tenant content, commerce and newsletter backend. Two versions side by side: `/v1` (x-api-key) and `/api/v2`. ' +
        'Errors are RFC 9457 problem details (`application/problem+json`).',
    )
    .setVersion('2.0')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Secret API key (sb_live_…)' }, 'apiKey')
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
  return SwaggerModule.createDocument(app, builder.build(), { extraModels: [ProblemDto] });
}

/** Swagger UI at /docs, the document at /docs/openapi.json. */
export function setupOpenApi(app: INestApplication): void {
  const document = buildOpenApiDocument(app);
  // Swagger UI's page names its assets relative to /docs: at /docs/ they would resolve to
  // /docs/docs/… and the page would stay blank.
  app.use(
    (req: { path: string; url: string }, res: { redirect(status: number, url: string): void }, next: () => void) => {
      if (req.path !== '/docs/') return next();
      const q = req.url.indexOf('?');
      res.redirect(301, `/docs${q < 0 ? '' : req.url.slice(q)}`);
    },
  );
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
    customSiteTitle: 'Sitebase API',
  });
}
