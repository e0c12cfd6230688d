import { Injectable, Logger } from '@nestjs/common';
import { ApiKeyVerifier, KeyPrincipal, PublishableKeyPrincipal } from '../common/auth/principal';
import { ApiKeysConfig } from './api-keys.config';
import { ChangeNotifications } from '../database/change-notifications';
import { ApiKeyCache } from './api-key-cache';
import { hashApiKey } from './api-key-secret';
import { ApiKeysRepository } from './api-keys.repository';

/** last_used_at is written at most this often per key, off the request path. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Who a presented key is, on every request (the credentials middleware's ApiKeyVerifier): a
 * secret key's principal or a publishable key's (docs/foundation.md, "Principals and the guard").
 */
@Injectable()
export class ApiKeyVerification implements ApiKeyVerifier {
  private readonly logger = new Logger('ApiKeys');
  private readonly cache: ApiKeyCache;
  private readonly publishableRate: number;

  constructor(
    private readonly repository: ApiKeysRepository,
    notifications: ChangeNotifications,
    config: ApiKeysConfig,
  ) {
    this.publishableRate = config.PUBLISHABLE_KEY_RATE_PER_MINUTE;
    this.cache = new ApiKeyCache(config.API_KEY_CACHE_TTL_MS, () => notifications.live);
    notifications.subscribe('sitebase_credentials', () => this.cache.reset());
  }

  /**
   * One indexed lookup by hash (the key's secret, or the one a roll replaced while its grace
   * lasts); revoked and expired keys do not verify. Answers from memory when it can
   * (API_KEY_CACHE_TTL_MS): a revocation, a roll, an expiry change or an account's deletion
   * reaches every instance's cache at commit, through a trigger's NOTIFY (docs/foundation.md),
   * and no entry outlives its secret's expiry.
   */
  async verify(plaintext: string): Promise<KeyPrincipal | PublishableKeyPrincipal | null> {
    const hash = hashApiKey(plaintext);
    const now = Date.now();
    const hit = this.cache.get(hash, now);
    if (hit) {
      if (hit.principal && now - hit.lastUsedAt > LAST_USED_RESOLUTION_MS) {
        hit.lastUsedAt = now;
        this.touch(hit.principal.keyId, hash, hit.secret);
      }
      return hit.principal;
    }
    const gen = this.cache.generation;
    const row = await this.repository.findLive(hash);
    if (!row) {
      this.cache.set(hash, gen, { principal: null, secret: 'current', lastUsedAt: 0 }, null, now);
      return null;
    }
    const id = row.id;
    let lastUsedAt = row.last_used_at?.getTime() ?? 0;
    if (now - lastUsedAt > LAST_USED_RESOLUTION_MS) {
      lastUsedAt = now;
      this.touch(id, hash, row.secret);
    }
    const siteIds = row.site_ids ? (Object.freeze(row.site_ids.map(Number)) as number[]) : null;
    const principal: KeyPrincipal | PublishableKeyPrincipal = Object.freeze(
      row.kind === 'publishable'
        ? {
            kind: 'publishable' as const,
            keyId: id,
            accountId: row.account_id,
            siteIds,
            allowedOrigins: row.allowed_origins ? Object.freeze([...row.allowed_origins]) : null,
            rateLimitPerMinute: row.rate_limit_per_minute ?? this.publishableRate,
          }
        : {
            kind: 'key' as const,
            keyId: id,
            accountId: row.account_id,
            siteIds,
            permissions: row.permissions ? Object.freeze([...row.permissions]) : null,
            accountDeletionScheduled: row.status === 'deletion_scheduled',
            secret: row.secret,
            expiresAt: row.expires_at?.getTime() ?? null,
          },
    );
    this.cache.set(hash, gen, { principal, secret: row.secret, lastUsedAt }, row.expires_at?.getTime() ?? null, now);
    return principal;
  }

  /** Records the last use of a key's secret (its current one or its previous), off the request path. */
  private touch(id: number, hash: string, secret: 'current' | 'previous'): void {
    this.repository
      .touch(id, hash, secret, new Date())
      .catch((err: unknown) => this.logger.warn({ err, keyId: id, secret }, 'Could not record last use'));
  }
}
