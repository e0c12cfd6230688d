import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { applyKeyset, CursorQueryDto, keysetPage, Page } from '../common/pagination/page';
import { sql } from '../database/sql';
import { SenderDomainEntity } from './entities/sender-domain.entity';

/** A verified domain's DKIM signing key, as nodemailer's signer takes it. */
export interface SigningKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/**
 * The sender domains' queries: the account's list, the guarded moves, and the lookups of the send
 * paths (docs/email.md), one statement per batch of mail, not per message.
 */
@Injectable()
export class SendersRepository {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(SenderDomainEntity) private readonly domains: Repository<SenderDomainEntity>,
  ) {}

  /** The account's sender domains, newest first. */
  async list(accountId: number, query: CursorQueryDto): Promise<Page<SenderDomainEntity>> {
    const qb = this.domains.createQueryBuilder('d').where('d.account_id = :accountId', { accountId });
    const rows = await applyKeyset(qb, [{ expr: 'd.id', type: 'number' }], query, 'DESC').getMany();
    return keysetPage(rows, query.limit, (d) => [d.id]);
  }

  /** Marks the account's domain verified if it is still pending: true for the one call that moved it. */
  async markVerified(em: EntityManager, accountId: number, id: number): Promise<boolean> {
    const moved = await em
      .createQueryBuilder()
      .update(SenderDomainEntity)
      .set({ status: 'verified', verifiedAt: () => 'now()' })
      .where('id = :id AND account_id = :accountId AND status = :pending', {
        id,
        accountId,
        pending: 'pending',
      })
      .execute();
    return Boolean(moved.affected);
  }

  /** Deletes the account's domain: its name, or undefined when the account has no such domain. */
  async remove(em: EntityManager, accountId: number, id: number): Promise<string | undefined> {
    const gone = await em
      .createQueryBuilder()
      .delete()
      .from(SenderDomainEntity)
      .where('id = :id AND account_id = :accountId', { id, accountId })
      .returning(['domain'])
      .execute();
    return (gone.raw as Array<{ domain: string }>)[0]?.domain;
  }

  /** The account's verified domains. */
  async verifiedDomains(em: EntityManager, accountId: number): Promise<string[]> {
    const { rows } = await sql<{ domain: string }>(
      em,
      `SELECT domain FROM sender_domains WHERE account_id = $1 AND status = 'verified'`,
      [accountId],
    );
    return rows.map((r) => r.domain);
  }

  /** Per site, the signing keys of its account's verified domains: the only read of private keys. */
  async signingKeys(siteIds: number[]): Promise<Array<SigningKey & { siteId: number }>> {
    const { rows } = await sql<SigningKey & { siteId: number }>(
      this.dataSource,
      `SELECT s.id AS "siteId", d.domain AS "domainName", d.dkim_selector AS "keySelector",
              d.dkim_private_key AS "privateKey"
         FROM sites s JOIN sender_domains d ON d.account_id = s.account_id AND d.status = 'verified'
        WHERE s.id = ANY($1::bigint[])`,
      [siteIds],
      { bigints: ['siteId'] },
    );
    return rows;
  }
}
