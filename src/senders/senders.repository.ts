import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { sql } from '../database/sql';

/** A verified domain's DKIM signing key, as nodemailer's signer takes it. */
export interface SigningKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/** The lookups of the send paths (docs/email.md): one statement per batch of mail, not per message. */
@Injectable()
export class SendersRepository {
  constructor(private readonly dataSource: DataSource) {}

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
