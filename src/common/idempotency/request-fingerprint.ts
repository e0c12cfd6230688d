import { createHash, Hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import { stableJson } from './stable-json';

/** The stored fingerprint of a streamed request whose body has not been read to its end yet. */
export const PENDING_STREAM = 'stream:pending';

const head = (req: Request) => `${req.method} ${req.originalUrl}\n`;

/**
 * What "the same request" means for a JSON (or form) body: method, path with query, and the body
 * as canonical JSON. No body and `{}` are the same request (an action route takes either).
 */
export function jsonFingerprint(req: Request): string {
  const body: unknown = req.body;
  const empty =
    body === undefined ||
    body === null ||
    (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);
  return createHash('sha256')
    .update(`${head(req)}${stableJson(empty ? null : body)}`)
    .digest('hex');
}

/**
 * A running hash of a multipart body with its boundary taken out: clients draw a new boundary for
 * each request, so the same form sent twice differs only there.
 */
class MultipartHash {
  private readonly hash: Hash;
  private readonly boundary: Buffer | null;
  private carry = Buffer.alloc(0);
  ended = false;

  constructor(req: Request) {
    const type = req.headers['content-type'] ?? '';
    const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(type);
    const boundary = match?.[1] ?? match?.[2];
    this.boundary = boundary ? Buffer.from(boundary, 'latin1') : null;
    this.hash = createHash('sha256').update(`${head(req)}${type.replace(/boundary=("[^"]*"|[^;\s]*)/i, '')}\n`);
  }

  update(chunk: Buffer): void {
    if (!this.boundary) {
      this.hash.update(chunk);
      return;
    }
    let data = Buffer.concat([this.carry, chunk]);
    for (let at = data.indexOf(this.boundary); at >= 0; at = data.indexOf(this.boundary)) {
      this.hash.update(data.subarray(0, at));
      data = data.subarray(at + this.boundary.length);
    }
    // The end of this chunk may begin a boundary that the next one finishes.
    const keep = Math.min(data.length, this.boundary.length - 1);
    this.hash.update(data.subarray(0, data.length - keep));
    this.carry = Buffer.from(data.subarray(data.length - keep));
  }

  digest(): string {
    return `stream:${this.hash.update(this.carry).digest('hex')}`;
  }
}

/**
 * Fingerprints a streamed body while the handler reads it: the hash joins as a second reader
 * when the stream starts flowing (the handler's pipe), so it sees every chunk the handler sees
 * and reads nothing the handler would miss. Null when the stream already flowed (nothing to see).
 */
export function watchStream(req: Request): (() => string) | null {
  const stream = req as IncomingMessage;
  if (stream.readableFlowing !== null || stream.readableEnded) return null;
  const hash = new MultipartHash(req);
  stream.once('resume', () => {
    stream.on('data', (chunk: Buffer) => hash.update(chunk));
    stream.once('end', () => (hash.ended = true));
  });
  // Read to its end, else another body would pass for this one.
  return () => (hash.ended ? hash.digest() : 'stream:unread');
}

/** Reads a streamed body that no handler will read (a replay or a refusal) to fingerprint it. */
export function drainStream(req: Request): Promise<string> {
  const hash = new MultipartHash(req);
  return new Promise((resolve, reject) => {
    req.on('data', (chunk: Buffer) => hash.update(chunk));
    req.once('end', () => resolve(hash.digest()));
    req.once('error', reject);
  });
}
