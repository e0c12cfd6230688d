import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import {
  applyKeysetShape,
  CursorQueryDto,
  KeysetColumn,
  keysetPage,
  keysetParameters,
  keysetShape,
  Page,
} from '../../common/pagination/page';
import { ShapedReads } from '../../database/fast-read';
import { sql } from '../../database/sql';
import { CreditEntryEntity } from '../entities/credit-entry.entity';

const BY_ID: KeysetColumn[] = [{ expr: 'x.id', type: 'number' }];

/** The credit ledger's statements (docs/users.md): balances and spends in one statement each. */
@Injectable()
export class CreditsRepository {
  private readonly ledgerReads = new ShapedReads<CreditEntryEntity>();

  constructor(@InjectRepository(CreditEntryEntity) private readonly entries: Repository<CreditEntryEntity>) {}

  /** What can be spent now: the remainders of grants and refunds not yet expired. */
  async balance(em: EntityManager, userId: number): Promise<number> {
    const { rows } = await sql<{ balance: number }>(
      em,
      // A balance outgrows an int after three grants of the largest size: summed as a bigint.
      `SELECT COALESCE(sum(remaining), 0)::bigint AS balance FROM user_credit_entries
        WHERE user_id = $1 AND remaining > 0 AND (expires_at IS NULL OR expires_at > now())`,
      [userId],
      { bigints: ['balance'] },
    );
    return rows[0].balance;
  }

  /**
   * Takes `amount` from the user's open grants, soonest expiry first (then oldest), in one
   * statement; the caller holds the user's row lock and checked the balance.
   */
  async consume(em: EntityManager, userId: number, amount: number): Promise<void> {
    await sql(
      em,
      `WITH open AS (
         SELECT id, remaining, sum(remaining) OVER (ORDER BY expires_at ASC NULLS LAST, id) AS running
           FROM user_credit_entries
          WHERE user_id = $1 AND remaining > 0 AND (expires_at IS NULL OR expires_at > now())
       )
       UPDATE user_credit_entries e
          SET remaining = CASE WHEN o.running <= $2 THEN 0 ELSE o.running - $2 END
         FROM open o
        WHERE e.id = o.id AND o.running - o.remaining < $2`,
      [userId, amount],
    );
  }

  async ledger(userId: number, query: CursorQueryDto): Promise<Page<CreditEntryEntity>> {
    const { entities } = await this.ledgerReads.read(
      keysetShape(query),
      { userId, ...keysetParameters(BY_ID, query) },
      (s) => applyKeysetShape(this.entries.createQueryBuilder('x').where('x.user_id = :userId'), BY_ID, s),
    );
    return keysetPage(entities, query.limit, (e) => [e.id]);
  }

  /** Writes the expiry lines of grants whose remainder expired (hourly): answers how many. */
  async expireDue(em: EntityManager, batch: number): Promise<number> {
    const { rowCount } = await sql(
      em,
      `WITH due AS (
         SELECT id, site_id, user_id, remaining FROM user_credit_entries
          WHERE remaining > 0 AND expires_at <= now() ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), closed AS (
         UPDATE user_credit_entries e SET remaining = 0 FROM due WHERE e.id = due.id RETURNING due.*
       )
       INSERT INTO user_credit_entries (site_id, user_id, kind, amount, reason, reference)
       SELECT site_id, user_id, 'expire', -remaining, 'Expired', 'grant:' || id FROM closed`,
      [batch],
    );
    return rowCount;
  }
}
