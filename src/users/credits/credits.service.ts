import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ConflictProblem, ValidationProblem } from '../../common/errors/problems';
import { recordEvent } from '../../common/outbox/record-event';
import { CursorQueryDto, Page } from '../../common/pagination/page';
import { QueueService } from '../../common/queue/queue.service';
import { findInSiteOrFail, SiteContext } from '../../common/tenancy/site-context';
import { CreditsRepository } from './credits.repository';
import { GrantCreditsDto, SpendCreditsDto } from '../dto/credits.dto';
import { CreditEntryEntity } from '../entities/credit-entry.entity';
import { SiteUserEntity } from '../entities/site-user.entity';
import { USER_EVENTS } from '../users.events';

export const CREDITS_EXPIRE_JOB = 'users.credits-expire';

export interface CreditChange {
  entry: CreditEntryEntity;
  balance: number;
}

/**
 * A user's credits (docs/users.md): an append-only ledger, the balance what it says. Every
 * change takes the user's row lock first, so concurrent spends see each other and a balance
 * never goes below zero; expired grants stop counting at their expiry, whatever the job does.
 */
@Injectable()
export class CreditsService implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: CreditsRepository,
    private readonly queue: QueueService,
  ) {}

  onModuleInit(): void {
    // The expiry lines, for the record: balances do not wait for them.
    this.queue.register(CREDITS_EXPIRE_JOB, async () => void (await this.writeExpiries()), {
      cron: '7 * * * *',
      retryLimit: 1,
    });
  }

  async balance(site: SiteContext, userId: number): Promise<number> {
    await findInSiteOrFail(this.dataSource.manager, SiteUserEntity, site, userId, 'User');
    return this.repository.balance(this.dataSource.manager, userId);
  }

  ledger(userId: number, query: CursorQueryDto): Promise<Page<CreditEntryEntity>> {
    return this.repository.ledger(userId, query);
  }

  async ledgerOf(site: SiteContext, userId: number, query: CursorQueryDto): Promise<Page<CreditEntryEntity>> {
    await findInSiteOrFail(this.dataSource.manager, SiteUserEntity, site, userId, 'User');
    return this.repository.ledger(userId, query);
  }

  grant(site: SiteContext, userId: number, dto: GrantCreditsDto): Promise<CreditChange> {
    if (dto.expiresAt && dto.expiresAt.getTime() <= Date.now())
      throw new ValidationProblem([{ path: 'expiresAt', message: 'must be in the future' }]);
    return this.dataSource.transaction(async (em) => {
      await this.lockUser(em, site, userId);
      const entry = await em.save(
        em.create(CreditEntryEntity, {
          siteId: site.id,
          userId,
          kind: 'grant',
          amount: dto.amount,
          remaining: dto.amount,
          reason: dto.reason,
          reference: dto.reference ?? null,
          expiresAt: dto.expiresAt ?? null,
        }),
      );
      const balance = await this.repository.balance(em, userId);
      await recordEvent(em, site, USER_EVENTS.creditsGranted, {
        userId,
        entryId: entry.id,
        amount: dto.amount,
        balance,
        reference: entry.reference,
      });
      return { entry, balance };
    });
  }

  /** A spend of its own (an operator's route). */
  spend(site: SiteContext, userId: number, dto: SpendCreditsDto): Promise<CreditChange> {
    return this.dataSource.transaction((em) => this.spendIn(em, site, userId, dto));
  }

  /**
   * Spends in the caller's transaction (a charge paid from credits): 409 `insufficient_credits`
   * when the balance is short, with nothing taken.
   */
  async spendIn(
    em: EntityManager,
    site: SiteContext,
    userId: number,
    dto: { amount: number; reason: string; reference?: string | null },
  ): Promise<CreditChange> {
    await this.lockUser(em, site, userId);
    const available = await this.repository.balance(em, userId);
    if (available < dto.amount)
      throw new ConflictProblem('insufficient_credits', `The balance is ${available}, short of ${dto.amount}`);
    await this.repository.consume(em, userId, dto.amount);
    const entry = await em.save(
      em.create(CreditEntryEntity, {
        siteId: site.id,
        userId,
        kind: 'spend',
        amount: -dto.amount,
        remaining: 0,
        reason: dto.reason,
        reference: dto.reference ?? null,
        expiresAt: null,
      }),
    );
    const balance = available - dto.amount;
    await recordEvent(em, site, USER_EVENTS.creditsSpent, {
      userId,
      entryId: entry.id,
      amount: dto.amount,
      balance,
      reference: entry.reference,
    });
    return { entry, balance };
  }

  async writeExpiries(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.dataSource.transaction((em) => this.repository.expireDue(em, 1000));
      total += n;
      if (n < 1000) return total;
    }
  }

  /** The user's row lock: every credit change of one user takes its turn. */
  private lockUser(em: EntityManager, site: SiteContext, userId: number): Promise<SiteUserEntity> {
    return findInSiteOrFail(em, SiteUserEntity, site, userId, 'User', { lock: true });
  }
}
