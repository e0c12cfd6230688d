import { Inject, Injectable, Optional } from '@nestjs/common';
import { Resolver } from 'node:dns/promises';
import { Problem } from '../common/errors/problems';
import { SendersConfig } from './senders.config';

/** What verifying a sender domain asks of DNS: `Resolver.resolveTxt`'s shape. */
export interface TxtResolver {
  resolveTxt(name: string): Promise<string[][]>;
}

/**
 * The Nest token of the TXT resolver. Unset, the system's DNS (node:dns/promises `Resolver`);
 * tests give a fake through a global module that provides this token.
 */
export const TXT_RESOLVER = Symbol('TXT_RESOLVER');

/** DNS answers that mean "no such record", not "DNS did not answer". */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);

/**
 * TXT lookups for sender verification, bounded by SENDER_DNS_TIMEOUT_MS. A missing name is an
 * empty answer; a resolver that fails or is too slow is a 503 problem (never a 500, and never
 * the resolver's own message, which may name internal servers).
 */
@Injectable()
export class SenderDns {
  private readonly resolver: TxtResolver;
  private readonly timeoutMs: number;

  constructor(config: SendersConfig, @Optional() @Inject(TXT_RESOLVER) resolver?: TxtResolver) {
    this.timeoutMs = config.SENDER_DNS_TIMEOUT_MS;
    this.resolver = resolver ?? new Resolver({ timeout: Math.min(this.timeoutMs, 2000), tries: 2 });
  }

  async txt(name: string): Promise<string[][]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'ETIMEOUT' })), this.timeoutMs);
    });
    try {
      return await Promise.race([this.resolver.resolveTxt(name), timeout]);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'string' && ABSENT.has(code)) return [];
      throw new Problem({
        status: 503,
        code: code === 'ETIMEOUT' ? 'dns_timeout' : 'dns_unavailable',
        title: 'DNS did not answer',
        detail: `The TXT lookup of ${name} ${code === 'ETIMEOUT' ? 'timed out' : 'failed'}; try again later`,
        headers: { 'Retry-After': '30' },
      });
    } finally {
      clearTimeout(timer);
    }
  }
}
