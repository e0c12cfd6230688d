import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ConflictProblem, NotFoundProblem } from '../../common/errors/problems';
import { recordEvent } from '../../common/outbox/record-event';
import { Page } from '../../common/pagination/page';
import { SiteContext } from '../../common/tenancy/site-context';
import { CreateSuppressionDto, SuppressionQueryDto } from '../dto/suppression.dto';
import { EMAIL_EVENTS } from '../email.events';
import { EmailSuppressionEntity, SuppressionReason } from '../entities/email-bounce.entity';
import { SuppressionHooks } from './suppression-hooks';
import { SuppressionsRepository } from './suppressions.repository';

const payloadOf = (s: EmailSuppressionEntity) => ({ id: s.id, email: s.email, reason: s.reason, note: s.note });

/**
 * The operator's side of suppressions (docs/deliverability.md): list, add (`manual`) and lift.
 * A bounce or an operator's entry is the site's to lift; a complaint is the person's word and
 * only the person lifts it, by confirming a subscription again (`liftByPerson`). Each write is
 * one transaction with its event, and runs the other modules' hooks (the newsletter's
 * deliverability) in it.
 */
@Injectable()
export class SuppressionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: SuppressionsRepository,
    private readonly hooks: SuppressionHooks,
  ) {}

  list(site: SiteContext, query: SuppressionQueryDto): Promise<Page<EmailSuppressionEntity>> {
    return this.repository.listOf(site, query);
  }

  async get(site: SiteContext, id: number): Promise<EmailSuppressionEntity> {
    const found = await this.repository.find(site, id);
    if (!found) throw new NotFoundProblem('Suppression');
    return found;
  }

  /**
   * An operator suppresses an address. One already suppressed is a 409 naming its entry: the
   * entry there (perhaps a complaint) stays as it is, and the note given is not kept.
   */
  create(site: SiteContext, dto: CreateSuppressionDto): Promise<EmailSuppressionEntity> {
    return this.dataSource.transaction(async (em) => {
      const entry = await this.repository.insertManual(em, site.id, dto.email, dto.note ?? null);
      if (!entry) {
        const there = await this.repository.lock(em, site.id, { email: dto.email });
        throw new ConflictProblem(
          'already_suppressed',
          `The address is already suppressed (${there?.reason ?? 'manual'}): entry ${there?.id ?? ''}`.trim(),
        );
      }
      await recordEvent(em, site, EMAIL_EVENTS.suppressionCreated, payloadOf(entry));
      await this.hooks.run(em, site, { email: entry.email, reason: 'manual', note: entry.note });
      return entry;
    });
  }

  /** The site lifts a bounce or its own entry; a complaint is a 409 with nothing changed. */
  lift(site: SiteContext, id: number, reason: string): Promise<void> {
    return this.dataSource.transaction(async (em) => {
      const entry = await this.repository.lock(em, site.id, { id });
      if (!entry) throw new NotFoundProblem('Suppression');
      if (entry.reason === 'complained')
        throw new ConflictProblem(
          'suppression_complained',
          'The address’s owner complained: only they lift it, by subscribing again and confirming',
        );
      await this.remove(em, site, entry, 'operator', reason);
    });
  }

  /** Why the site's mail does not go to `email` (by the address or its erased form), or null. */
  async reasonOf(em: EntityManager, site: SiteContext, email: string): Promise<SuppressionReason | null> {
    return this.repository.reasonOf(em, site.id, email.toLowerCase());
  }

  /**
   * A person confirmed a subscription of their address (double opt-in), in the caller's
   * transaction: their word lifts an operator's entry, not a bounce (a fact about the mailbox,
   * not a wish). A complaint is lifted only with `complaint: true`, which the newsletter passes
   * for the one act that is the person's: the POST of the re-consent link mailed after the
   * complaint (docs/deliverability.md, "Only the person lifts a complaint"); an ordinary
   * confirmation link, which a scanner's GET opens, never lifts it. Answers whether anything was lifted.
   */
  async liftByPerson(
    em: EntityManager,
    site: SiteContext,
    email: string,
    act: { complaint: boolean },
  ): Promise<boolean> {
    const entry = await this.repository.lock(em, site.id, { email: email.toLowerCase() });
    if (!entry || entry.reason === 'bounced') return false;
    if (entry.reason === 'complained' && !act.complaint) return false;
    await this.remove(em, site, entry, 'person', 'confirmed', email.toLowerCase());
    return true;
  }

  private async remove(
    em: EntityManager,
    site: SiteContext,
    entry: EmailSuppressionEntity,
    by: 'operator' | 'person',
    liftReason: string,
    // An erased person's entry holds the hash (erased-address.ts): the hooks get the address.
    address = entry.email,
  ): Promise<void> {
    await this.repository.remove(em, entry);
    await recordEvent(em, site, EMAIL_EVENTS.suppressionLifted, { ...payloadOf(entry), by, liftReason });
    await this.hooks.runLift(em, site, { email: address, reason: entry.reason, by });
  }
}
