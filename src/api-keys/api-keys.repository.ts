import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { applyKeyset, CursorQueryDto, keysetPage, Page } from '../common/pagination/page';
import { sql } from '../database/sql';
import { ApiKeyEntity } from './entities/api-key.entity';

/** What verifying a key reads: the key and its account's status, in one statement. */
export interface VerifiableKey {
  id: number;
  account_id: number;
  site_ids: string[] | null;
  permissions: string[] | null;
  kind: 'secret' | 'publishable';
  allowed_origins: string[] | null;
  rate_limit_per_minute: number | null;
  /** Which of the key's secrets the hash is: its current one, or the one a roll replaced. */
  secret: 'current' | 'previous';
  /** That secret's own last use. */
  last_used_at: Date | null;
  /** When that secret stops working: the key's expiry, or the previous secret's if sooner. */
  expires_at: Date | null;
  status: string;
}

/** The key queries that outgrow a repository method (docs/modules.md): the auth hot path, locks. */
@Injectable()
export class ApiKeysRepository {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
  ) {}

  /** The account's keys not revoked, newest first. */
  async listLive(accountId: number, query: CursorQueryDto): Promise<Page<ApiKeyEntity>> {
    const qb = this.keys
      .createQueryBuilder('k')
      .where('k.account_id = :accountId AND k.revoked_at IS NULL', { accountId });
    const rows = await applyKeyset(qb, [{ expr: 'k.id', type: 'number' }], query, 'DESC').getMany();
    return keysetPage(rows, query.limit, (k) => [k.id]);
  }

  /**
   * A live key by the hash of either of its secrets, with its account's status: one statement,
   * each hash through its unique index (the previous one only while its grace lasts), and a join.
   */
  async findLive(hash: string): Promise<VerifiableKey | null> {
    const { rows } = await sql<VerifiableKey>(
      this.dataSource,
      `SELECT k.id, k.account_id, k.site_ids, k.permissions, k.kind, k.allowed_origins, k.rate_limit_per_minute, a.status,
               CASE WHEN k.key_hash = $1 THEN 'current' ELSE 'previous' END AS secret,
               CASE WHEN k.key_hash = $1 THEN k.last_used_at ELSE k.previous_last_used_at END AS last_used_at,
               CASE WHEN k.key_hash = $1 THEN k.expires_at ELSE least(k.expires_at, k.previous_expires_at) END AS expires_at
           FROM api_keys k JOIN accounts a ON a.id = k.account_id
          WHERE (k.key_hash = $1 OR (k.previous_key_hash = $1 AND k.previous_expires_at > now()))
            AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`,
      [hash],
      { bigints: ['id', 'account_id'] },
    );
    return rows[0] ?? null;
  }

  /**
   * Records a secret's use: the key's own last use, or its previous secret's. Matched by hash,
   * so a use read just before a roll is not put on the secret that replaced it.
   */
  async touch(id: number, hash: string, secret: 'current' | 'previous', at: Date): Promise<void> {
    await sql(
      this.dataSource,
      secret === 'current'
        ? 'UPDATE api_keys SET last_used_at = $3 WHERE id = $1 AND key_hash = $2'
        : 'UPDATE api_keys SET previous_last_used_at = $3 WHERE id = $1 AND previous_key_hash = $2',
      [id, hash, at],
    );
  }

  /** Serialises key changes within an account until the transaction ends. */
  async lockAccount(em: EntityManager, accountId: number): Promise<void> {
    await sql(em, 'SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
  }

  /** Live unrestricted secret keys (every site, every permission) of the account besides `exceptId`. */
  async otherUnrestrictedCount(em: EntityManager, accountId: number, exceptId: number): Promise<number> {
    const { rows } = await sql<{ n: number }>(
      em,
      `SELECT count(*)::int AS n FROM api_keys
        WHERE account_id = $1 AND id <> $2 AND revoked_at IS NULL AND site_ids IS NULL AND kind = 'secret'
          AND (permissions IS NULL OR '*' = ANY (permissions))
          AND (expires_at IS NULL OR expires_at > now())`,
      [accountId, exceptId],
    );
    return rows[0].n;
  }

  /**
   * Rolls the key's secret in place: the current one becomes the previous (with its last use),
   * ending any previous one at once, and stays valid `graceSeconds` from now, never past the
   * key's own expiry; the new one has not been used. Answers when the previous one stops.
   */
  async roll(
    em: EntityManager,
    id: number,
    next: { keyHash: string; prefix: string; last4: string; graceSeconds: number },
  ): Promise<Date> {
    const { rows } = await sql<{ previous_expires_at: Date }>(
      em,
      `UPDATE api_keys
          SET previous_key_hash = key_hash, previous_prefix = prefix, previous_last4 = last4,
              previous_last_used_at = last_used_at,
              previous_expires_at = least(now() + make_interval(secs => $5), expires_at),
              key_hash = $2, prefix = $3, last4 = $4, last_used_at = NULL
        WHERE id = $1
        RETURNING previous_expires_at`,
      [id, next.keyHash, next.prefix, next.last4, next.graceSeconds],
    );
    return rows[0].previous_expires_at;
  }
}
