import { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { installPublicReadCaching } from './common/http/public-read-cache';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import { ProblemDetailsFilter } from './common/errors/problem-details.filter';
import { createValidationPipe } from './common/errors/validation';
import { createRootLogger, httpLogger, PinoNestLogger } from './common/logging/logging';
import { BlockedClients, refuseBlocked } from './common/rate-limit/blocked-clients';
import { PUBLIC_URLS_LOCAL, PublicUrls } from './common/http/public-urls';
import { fenceWarning } from './common/internals/fence';
import { checkReadFences } from './common/internals/fences';
import { inputPipe } from './common/internals/memoized-input.pipe';
import { setupOpenApi } from './common/openapi/openapi';
import { privateAnswers } from './common/http/private-answers';
import { corsForBrowsers, securityHeaders } from './common/http/security-headers';
import { credentials, CredentialsMiddleware } from './common/auth/credentials.middleware';
import { refuseContentEncoding, refuseMalformedQuery } from './common/input/request-body';
import { requestId } from './common/http/request-id';
import { Configs } from './config/configs';
import { AppMetrics } from './common/metrics/app-metrics';
import { httpMetrics } from './common/metrics/http-metrics';
import { MetricsEndpoint } from './common/metrics/metrics.module';
import { RouteTemplates } from './common/http/route-template';

export interface CreateAppOptions {
  configs: Configs;
  /** Extra modules (tests mount probe controllers this way). */
  extraModules?: Type[];
  /** Where log lines go instead of stdout (tests read them). */
  logDestination?: DestinationStream;
}

/** Builds the whole HTTP app, initialised but not listening. The server and the tests share it. */
export async function createApp({
  configs,
  extraModules = [],
  logDestination,
}: CreateAppOptions): Promise<NestExpressApplication> {
  const { http, logging, media } = configs;
  const logger = createRootLogger(logging, logDestination);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(configs, extraModules), {
    logger: new PinoNestLogger(logger),
    bodyParser: false,
    abortOnError: false,
  });
  app.disable('x-powered-by');
  // No body-hash ETag on every response (a SHA-1 of each list page): resources that can be
  // edited carry their own version ETag (content), and stored files theirs. docs/performance.md.
  app.set('etag', false);
  installPublicReadCaching(app.getHttpAdapter().getInstance(), http.PUBLIC_CACHE_MAX_AGE_SECONDS);
  (app.getHttpAdapter().getInstance() as { locals: Record<string, unknown> }).locals[PUBLIC_URLS_LOCAL] =
    app.get(PublicUrls);
  app.set('trust proxy', http.TRUST_PROXY);
  app.use(requestId);
  // Before anything can answer: credentialed answers are private (docs/security.md).
  app.use(privateAnswers());
  app.use(securityHeaders());
  app.use(corsForBrowsers());
  // Scrapes are neither counted nor logged; a blocked client's refusals are counted.
  const scrape = app.get(MetricsEndpoint).mainPortHandler();
  if (scrape) app.use(scrape);
  const routes = new RouteTemplates([media.MEDIA_PUBLIC_PATH, '/docs']);
  const metrics = app.get(AppMetrics);
  if (metrics.enabled) app.use(httpMetrics(metrics, routes));
  // A blocked client's flood is refused before the access log: the block itself is logged once.
  app.use(refuseBlocked(app.get(BlockedClients)));
  app.use(httpLogger(logger, { slowMs: logging.SLOW_REQUEST_MS, routes }));
  // Bodies are read after the guards (RequestBodyGuard), not here: credentials come first.
  app.use(refuseContentEncoding);
  app.use(refuseMalformedQuery);
  app.use(credentials(app.get(CredentialsMiddleware)));
  // What leans on libraries' internals is fenced (src/common/internals): the reads of Nest's
  // route metadata warn when Nest is another version; the params/query memo steps aside then,
  // and runs only with FAST_PATHS on.
  const fenceWarn = fenceWarning(logger);
  checkReadFences(fenceWarn);
  app.useGlobalPipes(inputPipe(createValidationPipe(), http, fenceWarn));
  app.useGlobalFilters(new ProblemDetailsFilter());
  if (http.DOCS_ENABLED) setupOpenApi(app);
  await app.init();
  return app;
}
