import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { KeyPrincipal } from '../common/auth/principal';
import { isUniqueViolation } from '../common/errors/postgres-errors';
import { ConflictProblem, FieldError, NotFoundProblem, Problem } from '../common/errors/problems';
import { recordEvent } from '../common/outbox/record-event';
import { namedXactLock } from '../database/sql';
import { CursorQueryDto, Page } from '../common/pagination/page';
import { CreateSenderDomainDto } from './dto/sender-domain.dto';
import { SenderDomainEntity } from './entities/sender-domain.entity';
import { SenderDns } from './sender-dns';
import { challengeRecord, dkimRecord, hasChallenge, hasDkimKey, newClaim, txtValues } from './sender-domain-records';
import { SENDER_EVENTS } from './senders.events';
import { SendersRepository } from './senders.repository';

/** Sender domains an account may hold: each costs an RSA key pair to make (docs/email.md). */
export const MAX_SENDER_DOMAINS = 50;

/**
 * An account's sender domains (docs/email.md, "Sender domains"): added with a challenge and a
 * DKIM key of their own, verified when both records are in DNS, removed at once. Every method
 * takes the caller's key first and reads only its account's rows: another account's id is a 404.
 */
@Injectable()
export class SenderDomainsService {
  constructor(
    @InjectRepository(SenderDomainEntity) private readonly domains: Repository<SenderDomainEntity>,
    private readonly dataSource: DataSource,
    private readonly dns: SenderDns,
    private readonly repository: SendersRepository,
  ) {}

  async add(key: KeyPrincipal, dto: CreateSenderDomainDto): Promise<SenderDomainEntity> {
    const full = () =>
      new ConflictProblem(
        'limit_reached',
        `An account has at most ${MAX_SENDER_DOMAINS} sender domains; remove one first`,
      );
    const count = () => this.domains.countBy({ accountId: key.accountId });
    // Checked before the key pair is made (its CPU is the cost), and again under the lock.
    if ((await count()) >= MAX_SENDER_DOMAINS) throw full();
    const claim = await newClaim();
    return this.dataSource.transaction(async (em) => {
      const taken = () =>
        new ConflictProblem('domain_exists', `${dto.domain} is already a sender domain of this account`);
      // Adds of one account take turns, so the limit holds under concurrency.
      await namedXactLock(em, `sender_domains:${key.accountId}`);
      if (await em.existsBy(SenderDomainEntity, { accountId: key.accountId, domain: dto.domain })) throw taken();
      if ((await em.countBy(SenderDomainEntity, { accountId: key.accountId })) >= MAX_SENDER_DOMAINS) throw full();
      let saved: SenderDomainEntity;
      try {
        saved = await em.save(
          em.create(SenderDomainEntity, { accountId: key.accountId, domain: dto.domain, status: 'pending', ...claim }),
        );
      } catch (err) {
        // The unique index (account, domain) settles adds at once: the losers get the same 409.
        if (isUniqueViolation(err, 'sender_domains_account_id_domain_key')) throw taken();
        throw err;
      }
      await recordEvent(em, { accountId: key.accountId }, SENDER_EVENTS.created, {
        id: saved.id,
        domain: saved.domain,
      });
      return this.reload(em.getRepository(SenderDomainEntity), key, saved.id);
    });
  }

  list(key: KeyPrincipal, query: CursorQueryDto): Promise<Page<SenderDomainEntity>> {
    return this.repository.list(key.accountId, query);
  }

  get(key: KeyPrincipal, id: number): Promise<SenderDomainEntity> {
    return this.reload(this.domains, key, id);
  }

  /**
   * Looks both records up (SenderDns: a timeout, 503 when DNS fails) and marks the domain
   * verified when both hold this claim's values; otherwise a 422 naming each record missing.
   * A verified domain is checked again the same way and stays verified either way.
   */
  async verify(key: KeyPrincipal, id: number): Promise<SenderDomainEntity> {
    const domain = await this.get(key, id);
    const challenge = challengeRecord(domain.domain, domain.challengeToken);
    const dkim = dkimRecord(domain.domain, domain.dkimSelector, domain.dkimPublicKey);
    const [challengeValues, dkimValues] = await Promise.all([
      this.dns.txt(challenge.name).then(txtValues),
      this.dns.txt(dkim.name).then(txtValues),
    ]);
    const missing: FieldError[] = [];
    if (!hasChallenge(challengeValues, challenge))
      missing.push({
        path: 'records.verification',
        message: `no TXT record ${challenge.name} with the value ${challenge.value}`,
      });
    if (!hasDkimKey(dkimValues, domain.dkimPublicKey))
      missing.push({ path: 'records.dkim', message: `no TXT record ${dkim.name} with this domain's DKIM key (p=…)` });
    if (missing.length > 0)
      throw new Problem({
        status: 422,
        code: 'dns_records_missing',
        title: 'DNS records not found',
        detail: `Publish ${missing.map((m) => m.path.replace('records.', '')).join(' and ')} record(s) for ${domain.domain}, then verify again (DNS changes can take a while to be seen)`,
        errors: missing,
      });
    if (domain.status === 'verified') return domain;
    return this.dataSource.transaction(async (em) => {
      // Only the request that moves it records the event: two verifications at once make one.
      if (await this.repository.markVerified(em, key.accountId, id))
        await recordEvent(em, { accountId: key.accountId }, SENDER_EVENTS.verified, { id, domain: domain.domain });
      return this.reload(em.getRepository(SenderDomainEntity), key, id);
    });
  }

  /** Mail From the domain goes From MAIL_FROM from the next batch on; its key is deleted with it. */
  async remove(key: KeyPrincipal, id: number): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      const removed = await this.repository.remove(em, key.accountId, id);
      if (removed === undefined) throw new NotFoundProblem('Sender domain');
      await recordEvent(em, { accountId: key.accountId }, SENDER_EVENTS.deleted, { id, domain: removed });
    });
  }

  private async reload(repo: Repository<SenderDomainEntity>, key: KeyPrincipal, id: number) {
    const found = await repo.findOneBy({ id, accountId: key.accountId });
    if (!found) throw new NotFoundProblem('Sender domain');
    return found;
  }
}
