import { Repository } from 'typeorm';
import { IdempotencyKeyEntity } from './idempotency-key.entity';

/** A key's row as a first request claims it. */
export type IdempotencyClaim = Pick<IdempotencyKeyEntity, 'scope' | 'key' | 'method' | 'path' | 'requestHash'>;

/** The idempotency keys' statements (docs/modules.md); the interceptor makes one and passes its table. */
export class IdempotencyKeysRepository {
  /** Deletes the scope's row of a key stored more than `ttlSeconds` ago: the key is free again. */
  async deleteExpired(
    repo: Repository<IdempotencyKeyEntity>,
    scope: string,
    keyHash: string,
    ttlSeconds: number,
  ): Promise<void> {
    await repo
      .createQueryBuilder()
      .delete()
      .where('scope = :scope AND key = :key AND created_at < now() - make_interval(secs => :ttl)', {
        scope,
        key: keyHash,
        ttl: ttlSeconds,
      })
      .execute();
  }

  /** Inserts the key's row, `processing`, unless it exists: its id, or undefined when another has it. */
  async claim(repo: Repository<IdempotencyKeyEntity>, row: IdempotencyClaim): Promise<number | undefined> {
    const inserted = await repo
      .createQueryBuilder()
      .insert()
      .values({ ...row, state: 'processing' })
      .orIgnore()
      .returning(['id'])
      .execute();
    const id = (inserted.raw as Array<{ id: string }>)[0]?.id;
    return id === undefined ? undefined : Number(id);
  }
}
