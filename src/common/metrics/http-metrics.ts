import type { RequestHandler } from 'express';
import { RouteTemplates } from '../http/route-template';
import { AppMetrics } from './app-metrics';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Counts and times every answered request by method, route template (never the raw path:
 * RouteTemplates) and status class. A request the client abandoned counts as 499 (4xx), as in
 * the access log. Methods outside the usual seven are `other`, so clients cannot mint labels.
 */
export function httpMetrics(metrics: AppMetrics, routes: RouteTemplates): RequestHandler {
  return (req, res, next) => {
    const end = metrics.httpDuration.startTimer();
    const done = () => {
      res.removeListener('finish', done);
      res.removeListener('close', done);
      const status = res.writableFinished ? res.statusCode : 499;
      const labels = {
        method: METHODS.has(req.method) ? req.method : 'other',
        route: routes.of(req),
        status_class: `${Math.floor(status / 100)}xx`,
      };
      end(labels);
      metrics.httpRequests.inc(labels);
      if (status >= 500) metrics.httpErrors.inc({ method: labels.method, route: labels.route });
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
