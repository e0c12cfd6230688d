import type { RequestHandler } from 'express';
import cors from 'cors';
import helmet from 'helmet';

/**
 * helmet with two policies: Swagger UI (/docs) is an HTML page and gets the browser set; every
 * other response is JSON or a stored file and gets the short set OWASP recommends for APIs
 * (nothing may run or frame it, no sniffing, no referrer, HSTS on HTTPS), which also keeps each
 * response some 600 bytes lighter.
 */
export function securityHeaders(): RequestHandler {
  const docs = helmet({
    contentSecurityPolicy: {
      directives: {
        'script-src': ["'self'"], 'style-src': ["'self'", "'unsafe-inline'", 'https:'], 'img-src': ["'self'", 'data:', 'https:'],
        // Self-hosted servers often speak plain HTTP on a LAN; upgrading would break /docs there.
        'upgrade-insecure-requests': null,
      },
    },
  });
  const api = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] } },
    // Media files are embedded by the sites' own pages, on other origins.
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    referrerPolicy: { policy: 'no-referrer' },
    xFrameOptions: { action: 'deny' },
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
    // Browsers ignore HSTS over plain HTTP (RFC 6797 §8.1); it is sent on secure requests below.
    strictTransportSecurity: false,
  });
  const hsts = 'max-age=31536000; includeSubDomains';
  return (req, res, next) => {
    if (req.path.startsWith('/docs')) return docs(req, res, next);
    if (req.secure) res.setHeader('Strict-Transport-Security', hsts);
    return api(req, res, next);
  };
}

/**
 * CORS for browsers on the sites' own origins (a headless CMS is read from anywhere; writes need
 * a key, which is never sent implicitly). Requests without an Origin skip the work.
 */
export function corsForBrowsers(): RequestHandler {
  const handle = cors({
    origin: true,
    exposedHeaders: ['Location', 'ETag', 'x-request-id', 'Retry-After', 'Idempotent-Replayed'],
    maxAge: 600,
  });
  return (req, res, next) => {
    res.vary('Origin');
    return req.headers.origin === undefined ? next() : handle(req, res, next);
  };
}
