import type { NextFunction, Request, Response } from 'express';

/** Where the page fetches the document: the one /docs/openapi.json serves. */
export const DOCUMENT_URL = '/docs/openapi.json';

/**
 * Swagger UI's start script, ours instead of @nestjs/swagger's: that one inlines the whole
 * document (about 1.9 MB of JSON in `swagger-ui-init.js`, fetched again with every page and
 * never shared with /docs/openapi.json). This one names the document by its URL, so the page
 * loads it once, compressed, as any client does. The options are swagger-ui's documented ones:
 *
 * - `filter`: a box that narrows the page to the groups whose name holds what is typed (with
 *   every module's routes on one page, people look for one group at a time);
 * - `persistAuthorization`: the key given to Authorize stays in the browser's local storage,
 *   so a reload does not ask for it again;
 * - `validatorUrl: null`: with a document given by URL, Swagger UI would otherwise send that URL
 *   to validator.swagger.io for its badge (a third party; the document is held to Redocly's
 *   rules by the tests instead).
 *
 * The file is a script, not inline code: the page's CSP allows scripts from itself only.
 */
const SCRIPT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(DOCUMENT_URL)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
    filter: true,
    persistAuthorization: true,
    validatorUrl: null,
  });
};
`;

/** Answers GET /docs/swagger-ui-init.js (the name Swagger UI's page loads) before the library's route. */
export function swaggerUiInit(req: Request, res: Response, next: NextFunction): void {
  if (req.path !== '/docs/swagger-ui-init.js' || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
  res.type('application/javascript').send(SCRIPT);
}
