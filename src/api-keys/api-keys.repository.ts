import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { sql } from '../database/sql';

/** What verifying a key reads: the key and its account's status, in one statement. */
export interface VerifiableKey {
  id: number;
  account_id: number;
  site_ids: string[] | null;
  permissions: string[] | null;
  kind: 'secret' | 'publishable';
  allowed_origins: string[] | null;
  rate_limit_per_minute: number | null;
  last_used_at: Date | null;
  expires_at: Date | null;
  status: string;
}

/** The key queries that outgrow a repository method (docs/modules.md): the auth hot path, locks. */
@Injectable()
export class ApiKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A live key by its hash, with its account's status (one index lookup and a join). */
  async findLive(hash: string): Promise<VerifiableKey | null> {
    const { rows } = await sql<VerifiableKey>(
      this.dataSource,
      `SELECT k.id, k.account_id, k.site_ids, k.permissions, k.kind, k.allowed_origins, k.rate_limit_per_minute,
                k.last_used_at, k.expires_at, a.status
           FROM api_keys k JOIN accounts a ON a.id = k.account_id
          WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`,
      [hash],
      { bigints: ['id', 'account_id'] },
    );
    return rows[0] ?? null;
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
}
