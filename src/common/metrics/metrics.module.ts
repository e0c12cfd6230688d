import { Global, Injectable, Module, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import cluster from 'node:cluster';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import type { RequestHandler } from 'express';
import { MetricsConfig } from '../../config/metrics.config';
import { ProblemCodeOf } from '../errors/problem-codes';
import { Problem, withStatus } from '../errors/problems';
import { AppMetrics } from './app-metrics';
import {
  closeServer,
  clusterMetricsFromPrimary,
  METRICS_CONTENT_TYPE,
  reportToPrimary,
  startMetricsServer,
} from './metrics-server';
import { StateMetrics } from './state-metrics';

/**
 * What a scrape of this process answers: in a cluster worker the whole cluster's metrics
 * (the primary aggregates), else this process's.
 */
@Injectable()
export class MetricsEndpoint implements OnApplicationBootstrap, OnModuleDestroy {
  private server?: Server;

  constructor(
    private readonly metrics: AppMetrics,
    private readonly config: MetricsConfig,
  ) {}

  render(): Promise<string> {
    return cluster.isWorker ? clusterMetricsFromPrimary() : this.metrics.render();
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.metrics.enabled) return;
    if (cluster.isWorker) {
      reportToPrimary(this.metrics.registry);
      return; // the primary holds METRICS_PORT
    }
    if (this.config.METRICS_PORT > 0) {
      this.server = await startMetricsServer(this.config.METRICS_HOST, this.config.METRICS_PORT, () =>
        this.metrics.render(),
      );
    }
  }

  async onModuleDestroy(): Promise<void> {
    if (this.server) await closeServer(this.server);
    this.server = undefined;
  }

  /**
   * GET /metrics on the main port, outside the versioned API and the OpenAPI document, for a
   * caller with `Authorization: Bearer <METRICS_TOKEN>`; null when no token is set (the path is
   * then an ordinary 404). Mounted before the credentials middleware, which would read the
   * bearer token as a site-user session.
   */
  mainPortHandler(): RequestHandler | null {
    const token = this.config.METRICS_TOKEN;
    if (!token) return null;
    const expected = createHash('sha256').update(token).digest();
    const unauthorized = (code: ProblemCodeOf<401>, detail: string) =>
      new Problem(
        withStatus(401, code, {
          title: 'Unauthorized',
          detail,
          headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
        }),
      );
    return (req, res, next) => {
      if (req.path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
      const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      if (!match) return next(unauthorized('missing_credential', 'Authorization: Bearer <METRICS_TOKEN> is required'));
      // Hashes of equal length: the comparison takes the same time whatever was sent.
      const given = createHash('sha256').update(match[1]).digest();
      if (!timingSafeEqual(given, expected)) return next(unauthorized('invalid_metrics_token', 'The token is wrong'));
      this.render().then(
        (text) => {
          res.setHeader('Cache-Control', 'no-store');
          res.type(METRICS_CONTENT_TYPE).send(req.method === 'HEAD' ? undefined : text);
        },
        () =>
          next(
            new Problem({
              status: 503,
              code: 'metrics_unavailable',
              title: 'Service unavailable',
              detail: 'The metrics could not be collected; try the next scrape',
            }),
          ),
      );
    };
  }
}

/** Prometheus metrics (docs/operations.md): the registry every module may count into, and its endpoints. */
@Global()
@Module({
  providers: [StateMetrics, AppMetrics, MetricsEndpoint],
  exports: [AppMetrics, MetricsEndpoint],
})
export class MetricsModule {}
