import { STATUS_CODES } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { declaredProblems } from './problem-codes';

/**
 * A problem's `type` (`/problems/not-found`, problemBody) resolves to a short page about it
 * (RFC 9457 §3.1.1: the URI should point at documentation), written from the same declarations
 * the classes and the document take (`defineProblems`): no page can name a code the server
 * does not answer, and a new code has its page the day it is declared. JSON on
 * `Accept: application/json`, HTML otherwise. Every text is a declared code, its status and
 * module (snake_case and digits): nothing of the request is echoed.
 */

export const PROBLEMS_PATH = '/problems';

export interface ProblemPage {
  type: string;
  code: string;
  status: number;
  title: string;
  description: string;
  declaredBy: string[];
}

/** The path segment of a code's type: `not_found` → `not-found` (as problemBody writes it). */
export const problemTypeOf = (code: string): string => `${PROBLEMS_PATH}/${code.replace(/_/g, '-')}`;

function pages(): Map<string, ProblemPage> {
  const byType = new Map<string, ProblemPage>();
  for (const [module, codes] of declaredProblems()) {
    for (const [code, status] of Object.entries(codes)) {
      const type = problemTypeOf(code);
      const known = byType.get(type);
      if (known) {
        known.declaredBy.push(module);
        continue;
      }
      const words = code.replace(/_/g, ' ');
      byType.set(type, {
        type,
        code,
        status,
        title: words[0].toUpperCase() + words.slice(1),
        description:
          `Answered with HTTP ${status} ${STATUS_CODES[status] ?? ''} and \`code: "${code}"\`. The answer's ` +
          '`detail` says what went wrong in that request' +
          (status === 400 ? ', and `errors` names each field refused with what to send.' : '.') +
          (status === 401 ? ' `WWW-Authenticate` names the credentials the route takes.' : ''),
        declaredBy: [module],
      });
    }
  }
  return byType;
}

const page = (p: ProblemPage): string =>
  '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
  `<title>${p.title} (${p.status})</title></head><body>` +
  `<h1>${p.title}</h1><p><code>${p.code}</code>, HTTP ${p.status}</p>` +
  `<p>${p.description.replace(/`([^`]*)`/g, '<code>$1</code>')}</p>` +
  '<p>Every error is an RFC 9457 problem (<code>application/problem+json</code>); the API reference is at ' +
  '<a href="/docs">/docs</a>.</p></body></html>';

/** GET (and HEAD) `/problems/<type>`; anything else under it goes on to the routes (a 404). */
export function problemPages(): (req: Request, res: Response, next: NextFunction) => void {
  let known: Map<string, ProblemPage> | undefined;
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.path.startsWith(`${PROBLEMS_PATH}/`)) return next();
    // Built at the first request: by then every module has declared its codes.
    known ??= pages();
    const found = known.get(req.path);
    if (!found) return next();
    res.vary('Accept');
    res.setHeader('Cache-Control', 'public, max-age=3600');
    if (req.accepts(['html', 'json']) === 'json') res.json(found);
    else res.type('html').send(page(found));
  };
}
