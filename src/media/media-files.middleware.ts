import { MediaRepository } from './media.repository';
import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { MediaConfig } from './media.config';
import { NotFoundProblem, Problem } from '../common/errors/problems';
import { contentDisposition, parseRange } from './file-serving';
import { isStorageKey } from './media-keys';
import { MediaStorage } from './storage/media-storage';

/**
 * Serves stored files at MEDIA_PUBLIC_PATH (local storage, or S3 without a public URL). Public
 * and unthrottled like any static file host; only keys of existing media rows are served, with
 * the type detected at upload, `nosniff`, and SVG as an attachment under a sandboxing CSP.
 */
@Injectable()
export class MediaFilesMiddleware implements NestMiddleware {
  private readonly prefix: string;

  constructor(
    config: MediaConfig,
    private readonly storage: MediaStorage,
    private readonly repository: MediaRepository,
  ) {
    this.prefix = `${config.MEDIA_PUBLIC_PATH}/`;
  }

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.originalUrl.split('?')[0];
    if (!path.startsWith(this.prefix)) return next();
    const key = safeDecode(path.slice(this.prefix.length));
    if (key === null || !isStorageKey(key)) throw new NotFoundProblem('File');
    const row = await this.repository.fileByKey(key);
    if (!row) throw new NotFoundProblem('File');

    const size = row.filesize;
    const svg = row.content_type === 'image/svg+xml';
    const etag = `"m${row.id}-${size}"`;
    res.setHeader('Content-Type', row.content_type);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // Sites embed their media from their own origins.
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable'); // keys never change
    res.setHeader('ETag', etag);
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Content-Disposition', contentDisposition(svg ? 'attachment' : 'inline', row.file_name));
    if (svg) res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    if (req.headers['if-none-match'] === etag) {
      res.status(304).end();
      return;
    }
    const range = parseRange(req.headers.range, size);
    if (range === 'unsatisfiable') {
      res.setHeader('Content-Range', `bytes */${size}`);
      throw new Problem({
        status: 416,
        code: 'range_not_satisfiable',
        title: 'Range not satisfiable',
        detail: 'The range is outside the file',
      });
    }
    const object = await this.storage.read(key, range ?? undefined);
    if (!object) throw new NotFoundProblem('File');
    if (range) {
      res.status(206).setHeader('Content-Range', `bytes ${range.start}-${range.end}/${object.size}`);
      res.setHeader('Content-Length', String(range.end - range.start + 1));
    } else {
      res.status(200).setHeader('Content-Length', String(object.size));
    }
    if (req.method === 'HEAD') {
      object.body.destroy();
      res.end();
      return;
    }
    // Once bytes are sent a failure can only cut the response short.
    await pipeline(object.body, res).catch(() => res.destroy());
  }
}

function safeDecode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
