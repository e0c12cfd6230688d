import { Injectable } from '@nestjs/common';
import { get } from 'node:https';
import { SNS_CERT_MAX_BYTES, snsUrlAllowed } from './ses';

/**
 * The Nest token of the client that reaches Amazon SNS (its signing certificates, a subscription's
 * SubscribeURL). Unset, HttpsSnsClient; tests give a fake through a global module that provides
 * this token, as they do the DNS (senders/sender-dns.ts).
 */
export const SNS_HTTP_CLIENT = Symbol('SNS_HTTP_CLIENT');

/** Only URLs that passed snsUrlAllowed are ever given to it. */
export interface SnsHttpClient {
  /** The PEM text at a certificate URL; throws when it cannot be had. */
  certificate(url: string): Promise<string>;
  /** GETs a SubscribeURL (confirms the subscription); throws unless SNS answered 200. */
  confirmSubscription(url: string): Promise<void>;
}

/** How long one request may take (connection and answer), and how many certificates are kept. */
const TIMEOUT_MS = 5000;
const MAX_CACHED = 50;
const CACHE_MS = 24 * 3600 * 1000;
/** A ConfirmSubscription answer is a short XML document. */
const CONFIRM_MAX_BYTES = 16 * 1024;

/**
 * HTTPS only, no redirect followed, bounded in time and size; certificates kept by URL for a day
 * (SNS signs with one certificate for months). It checks each URL again against the SNS rule.
 */
@Injectable()
export class HttpsSnsClient implements SnsHttpClient {
  private readonly certificates = new Map<string, { pem: string; until: number }>();

  async certificate(url: string): Promise<string> {
    const cached = this.certificates.get(url);
    if (cached && cached.until > Date.now()) return cached.pem;
    if (!snsUrlAllowed(url, 'certificate')) throw new Error('Not an SNS certificate URL');
    const pem = (await fetchText(url, SNS_CERT_MAX_BYTES)).toString('utf8');
    if (this.certificates.size >= MAX_CACHED) this.certificates.delete(this.certificates.keys().next().value!);
    this.certificates.set(url, { pem, until: Date.now() + CACHE_MS });
    return pem;
  }

  async confirmSubscription(url: string): Promise<void> {
    if (!snsUrlAllowed(url, 'subscribe')) throw new Error('Not an SNS URL');
    await fetchText(url, CONFIRM_MAX_BYTES);
  }
}

/** GET over HTTPS (certificate checked by Node): the body when the status is 200, at most `max` bytes. */
function fetchText(url: string, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = get(url, { timeout: TIMEOUT_MS, headers: { accept: '*/*' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`SNS answered ${res.statusCode}`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > max) {
          req.destroy(new Error('SNS answer too large'));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve(Buffer.concat(chunks)));
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(new Error('SNS timed out')), TIMEOUT_MS);
    req.on('timeout', () => req.destroy(new Error('SNS timed out')));
    req.on('error', reject);
    req.on('close', () => clearTimeout(timer));
  });
}
