import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { NextFunction, Request, Response } from 'express';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

interface Asset {
  type: string;
  etag: string;
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

/** Swagger UI's large files, besides the document: what its page loads (each 0.1-1.5 MB). */
const UI_FILES: Record<string, string> = {
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
};

/**
 * The document and Swagger UI's files, compressed once per process and kept: every anonymous
 * GET of /docs/openapi.json (1.1 MB) or the bundle (1.5 MB) compressed again would cost tens of
 * milliseconds of CPU a request, which a stranger could ask for in a loop. Each is built on its
 * first request (brotli and gzip on libuv's threads, not the event loop), then answered from
 * memory by Accept-Encoding (br, then gzip, else as is), with `Vary: Accept-Encoding`, an ETag
 * of its content and a 304 to an `If-None-Match` naming it. The compression middleware leaves
 * them alone (their Content-Encoding is set, or they are too small to matter when identity).
 */
export function docsAssets(documentJson: () => string): (req: Request, res: Response, next: NextFunction) => void {
  // The package @nestjs/swagger serves the page's files from (one copy, hoisted).
  const dist = dirname(require.resolve('swagger-ui-dist/package.json'));
  const sources = new Map<string, [string, () => Buffer]>([
    ['/docs/openapi.json', ['application/json; charset=utf-8', () => Buffer.from(documentJson())]],
    ...Object.entries(UI_FILES).map(
      ([file, type]) =>
        [`/docs/${file}`, [type, () => readFileSync(join(dist, file))]] as [string, [string, () => Buffer]],
    ),
  ]);
  const built = new Map<string, Promise<Asset>>();
  const build = async (type: string, read: () => Buffer): Promise<Asset> => {
    const identity = read();
    const [br, gz] = await Promise.all([
      brotli(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }),
      gzipped(identity, { level: 9 }),
    ]);
    const etag = `"${createHash('sha1').update(identity).digest('base64url')}"`;
    return { type, etag, identity, br, gzip: gz };
  };
  return (req, res, next) => {
    const source = sources.get(req.path);
    if (!source || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    let asset = built.get(req.path);
    if (!asset) built.set(req.path, (asset = build(...source)));
    asset.then((a) => answer(req, res, a), next);
  };
}

function answer(req: Request, res: Response, asset: Asset): void {
  res.setHeader('Content-Type', asset.type);
  res.setHeader('ETag', asset.etag);
  res.vary('Accept-Encoding');
  if (req.headers['if-none-match'] === asset.etag) {
    res.status(304).end();
    return;
  }
  const encoding = req.acceptsEncodings('br', 'gzip', 'identity');
  const body = encoding === 'br' ? asset.br : encoding === 'gzip' ? asset.gzip : asset.identity;
  if (encoding === 'br' || encoding === 'gzip') res.setHeader('Content-Encoding', encoding);
  res.setHeader('Content-Length', body.length);
  res.status(200).end(req.method === 'HEAD' ? undefined : body);
}
