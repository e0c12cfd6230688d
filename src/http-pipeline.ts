import { CanActivate, Module, NestInterceptor, Provider, Type } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { Logger as Pino } from 'pino';
import { AccountModule } from './account/account.module';
import { AuthGuard } from './common/auth/auth.guard';
import { credentials, CredentialsMiddleware } from './common/auth/credentials.middleware';
import { ProblemDetailsFilter } from './common/errors/problem-details.filter';
import { problemPages, PROBLEMS_PATH } from './common/errors/problem-pages';
import { createValidationPipe } from './common/errors/validation';
import { compressAnswers } from './common/http/compression';
import { privateAnswers } from './common/http/private-answers';
import { PublicReadCacheInterceptor } from './common/http/public-read-cache';
import { requestId } from './common/http/request-id';
import { RouteTemplates } from './common/http/route-template';
import { corsForBrowsers, securityHeaders } from './common/http/security-headers';
import { IdempotencyInterceptor } from './common/idempotency/idempotency.interceptor';
import { refuseContentEncoding, refuseMalformedQuery } from './common/input/header-checks';
import { RequestBodyGuard } from './common/input/request-body';
import { FenceWarning } from './common/internals/fence';
import { inputPipe } from './common/internals/memoized-input.pipe';
import { httpLogger } from './common/logging/logging';
import { AppMetrics } from './common/metrics/app-metrics';
import { httpMetrics } from './common/metrics/http-metrics';
import { MetricsEndpoint } from './common/metrics/metrics.module';
import { setupOpenApi } from './common/openapi/openapi';
import { BlockedClients, refuseBlocked } from './common/rate-limit/blocked-clients';
import { CostBudgetGuard, CostBudgetInterceptor, CostsInFlight } from './common/rate-limit/cost-budget.guard';
import { RateLimitAfterAuthGuard, RateLimitGuard } from './common/rate-limit/rate-limit.guard';
import { Configs } from './config/configs';

/*
 * A request's steps, in the order they run (docs/foundation.md, "The request pipeline"). Each
 * stands where it does for the reason beside it; moving one is a decision about that reason.
 *
 * 1. Express middlewares, for every request, before any route: applyMiddlewares.
 * 2. On a Nest route, its global guards, then interceptors: HttpPipelineModule's providers, which
 *    Nest runs in the order listed (GUARDS, INTERCEPTORS).
 * 3. The input pipe on the handler's parameters, the handler, and for any error the problem
 *    filter: applyPipesAndFilter.
 */

/** Stage 1: Express middlewares. No body is read here: the guards come first (stage 2). */
function applyMiddlewares(app: NestExpressApplication, { http, logging, media }: Configs, logger: Pino): void {
  // First: every later step, log line and answer carries the request's id.
  app.use(requestId);
  // Next, so every answer after it, refusals included, leaves compressed when the client asks.
  app.use(compressAnswers(media.MEDIA_PUBLIC_PATH));
  // Before anything can answer: credentialed answers are private (docs/security.md).
  app.use(privateAnswers());
  // Before any refusal, so every answer carries them and a browser can read a 429.
  app.use(securityHeaders());
  app.use(corsForBrowsers());
  // Scrapes of the main port are neither counted nor logged, and their bearer token is not
  // taken for a site-user session by the credentials below.
  const scrape = app.get(MetricsEndpoint).mainPortHandler();
  if (scrape) app.use(scrape);
  const routes = new RouteTemplates([media.MEDIA_PUBLIC_PATH, '/docs', PROBLEMS_PATH]);
  const metrics = app.get(AppMetrics);
  // Counts every answer from here on, a blocked client's refusals included.
  if (metrics.enabled) app.use(httpMetrics(metrics, routes));
  // A blocked client's flood is refused before the access log: the block itself is logged once.
  app.use(refuseBlocked(app.get(BlockedClients)));
  app.use(httpLogger(logger, { slowMs: logging.SLOW_REQUEST_MS, routes }));
  // Header checks that cost nothing, on every path, before a credential is looked up.
  app.use(refuseContentEncoding);
  app.use(refuseMalformedQuery);
  // The pages a problem's `type` names, for anyone: before a credential could refuse the reader.
  app.use(problemPages());
  // Who is calling (a key, a session, or anonymous), for the guards; it refuses nothing by itself.
  app.use(credentials(app.get(CredentialsMiddleware)));
  // Swagger UI and the document (routes of their own, when enabled), before Nest's routes.
  if (http.DOCS_ENABLED) setupOpenApi(app);
  // Then, mounted by Nest at init: the media module's stored files on MEDIA_PUBLIC_PATH
  // (media.module.ts), served without the guards, then the routes (stage 2).
}

/**
 * The limits: what a caller may spend, each step checked as early as it can be decided. Named
 * steps of one stage, placed around the AuthGuard in GUARDS and INTERCEPTORS.
 */
const LIMITS = {
  /** Per address, key or session, before auth: refusing a flood costs less than a site lookup. */
  rate: RateLimitGuard,
  /** After auth: a credential that reads as anonymous on a public route counts by address too. */
  rateAfterAuth: RateLimitAfterAuthGuard,
  /** After auth, which names the account: its budget of an expensive route (`@Route({ cost })`). */
  costBudget: CostBudgetGuard,
  /** Gives a cost's slot back when the handler ends, not when the client leaves. */
  costRelease: CostBudgetInterceptor,
} as const;

/** Stage 2, guards: each may refuse, and none reads a body before the last. */
const GUARDS: Type<CanActivate>[] = [
  LIMITS.rate,
  // Who may call this route, and the site in its path (@CurrentSite()).
  AuthGuard,
  LIMITS.rateAfterAuth,
  LIMITS.costBudget,
  // Last: no body is read for a caller the guards before refuse (docs/foundation.md, "Input rules").
  RequestBodyGuard,
];

/** Stage 2, interceptors: the first listed wraps the others. */
const INTERCEPTORS: Type<NestInterceptor>[] = [
  // Outermost: it serialises the answer the others leave, once, for its ETag.
  PublicReadCacheInterceptor,
  // Every POST honours Idempotency-Key (idempotent.decorator.ts): a stored answer is replayed
  // without the handler, and the body it fingerprints is already read.
  IdempotencyInterceptor,
  LIMITS.costRelease,
];

/** Nest's global guards and interceptors, in the order above (they have dependencies to inject). */
const PIPELINE_PROVIDERS: Provider[] = [
  ...GUARDS.map((useClass) => ({ provide: APP_GUARD, useClass })),
  ...INTERCEPTORS.map((useClass) => ({ provide: APP_INTERCEPTOR, useClass })),
];

/** Stage 3: parameters are validated just before the handler; any error becomes a problem. */
function applyPipesAndFilter(app: NestExpressApplication, { http }: Configs, fenceWarn: FenceWarning): void {
  // The validation pipe, behind a memo of checked params and queries (FAST_PATHS, fenced).
  app.useGlobalPipes(inputPipe(createValidationPipe(), http, fenceWarn));
  // Every error, from any stage (a middleware's too), as application/problem+json.
  app.useGlobalFilters(new ProblemDetailsFilter());
}

/** The guards and interceptors of stage 2, with what they need (AuthGuard: the site directory). */
@Module({
  imports: [AccountModule],
  providers: [...PIPELINE_PROVIDERS, CostsInFlight],
})
export class HttpPipelineModule {}

/** Stages 1 and 3, applied by createApp before init (stage 2 comes with AppModule). */
export function applyHttpPipeline(
  app: NestExpressApplication,
  configs: Configs,
  logger: Pino,
  fenceWarn: FenceWarning,
): void {
  applyMiddlewares(app, configs, logger);
  applyPipesAndFilter(app, configs, fenceWarn);
}
