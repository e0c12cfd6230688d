import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SendersRepository, SigningKey } from './senders.repository';

export type { SigningKey } from './senders.repository';

/**
 * What the email module asks of sender domains (docs/email.md, "Sender domains"): which
 * domains an account may send From, and the keys that sign them. Both are read once per batch
 * (a campaign batch's recording, a delivery flush), never per message.
 */
@Injectable()
export class SendersService {
  constructor(private readonly repository: SendersRepository) {}

  /** The account's verified domains, lower case, read in the caller's transaction. */
  async verifiedDomains(em: EntityManager, accountId: number): Promise<Set<string>> {
    return new Set(await this.repository.verifiedDomains(em, accountId));
  }

  /** For each site, its account's verified domains with their DKIM keys (domain → key). */
  async signingKeys(siteIds: number[]): Promise<Map<number, Map<string, SigningKey>>> {
    const bySite = new Map<number, Map<string, SigningKey>>(siteIds.map((id) => [id, new Map()]));
    if (siteIds.length === 0) return bySite;
    for (const { siteId, ...key } of await this.repository.signingKeys([...new Set(siteIds)]))
      bySite.get(siteId)?.set(key.domainName, key);
    return bySite;
  }
}
