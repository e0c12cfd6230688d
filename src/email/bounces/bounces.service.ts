import { ServerKeys } from '../../common/crypto/server-keys';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SitesService } from '../../account/sites.service';
import { BouncesConfig } from './bounces.config';
import type { BounceReport } from './bounce-report';
import { BouncesRepository, ReportedMessage } from './bounces.repository';
import type { ProviderEvent } from './providers/provider-event';
import { SuppressionHooks } from './suppression-hooks';
import { classifyBounceAddress, readVerpToken } from './verp';

export type ReportOutcome = 'recorded' | 'duplicate' | 'unmatched';

/** The campaign number in a copy's tags (`newsletter-campaign:<id>`), as the campaign sender tags them. */
export function campaignOf(tags: string[]): number | null {
  for (const tag of tags) {
    const m = /^newsletter-campaign:([1-9]\d{0,15})$/.exec(tag);
    if (m) return Number(m[1]);
  }
  return null;
}

/**
 * Bounces and complaints in (docs/deliverability.md): the VERP key and envelope senders, and
 * `record`, which ties a report to the message it answers and applies the policy in one
 * transaction: a hard bounce suppresses the address (`bounced`), soft bounces do once a site's
 * limit is reached within its window, a complaint suppresses it as `complained`. Suppressing runs
 * the other modules' hooks (the newsletter's subscription state and events) in that transaction.
 */
@Injectable()
export class BouncesService {
  private readonly logger = new Logger('Bounces');

  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: BouncesRepository,
    private readonly config: BouncesConfig,
    private readonly sites: SitesService,
    private readonly hooks: SuppressionHooks,
    private readonly serverKeys: ServerKeys,
  ) {}

  get verpEnabled(): boolean {
    return this.config.BOUNCE_DOMAIN !== '';
  }

  /** The VERP key (verp.ts): derived from the server's `verp` secret (ServerKeys: made on first use). */
  verpKey(): Promise<Buffer> {
    return this.serverKeys.key('verp');
  }

  /** The message an address at the bounce domain names; null for `bounces@` or a bad token. */
  async messageOfAddress(address: string): Promise<number | null> {
    if (!this.verpEnabled) return null;
    const ours = classifyBounceAddress(address, this.config.BOUNCE_DOMAIN);
    return ours.kind === 'token' ? readVerpToken(await this.verpKey(), ours.token) : null;
  }

  /**
   * Records a report. The message is the one its VERP address named (`named`: the RCPT TO of the
   * listener), else the one the quoted original's Return-Path names, else the quoted
   * X-Sitebase-Message-Id when the quoted Message-ID is that message's: a report that names none
   * of these is `unmatched` and changes nothing.
   */
  async record(report: BounceReport, named: number | null): Promise<ReportOutcome> {
    const outcome = await this.dataSource.transaction(async (em) => {
      const message = await this.find(em, report, named);
      if (!message) return 'unmatched' as const;
      const site = await this.sites.findById(message.siteId);
      if (!site) return 'unmatched' as const;
      const email = message.recipient.toLowerCase();
      const fresh = await this.repository.insertBounce(em, {
        siteId: site.id,
        messageId: message.id,
        recipient: email,
        kind: report.kind,
        source: report.source,
        status: report.status,
        diagnostic: report.diagnostic?.slice(0, 1000) ?? null,
      });
      if (!fresh) return 'duplicate' as const;
      const reason = await this.verdict(em, site.id, email, report);
      if (reason && (await this.repository.suppress(em, site.id, email, reason, message.id)))
        await this.hooks.run(em, site, {
          email,
          reason,
          kind: report.kind,
          source: report.source,
          messageId: message.id,
          campaignId: campaignOf(message.tags),
        });
      return 'recorded' as const;
    });
    this.logger.log({ outcome, kind: report.kind, source: report.source }, 'Bounce report');
    return outcome;
  }

  /** The message a VERP token names, or null when it is malformed or not signed with our key. */
  async messageOfToken(token: string): Promise<number | null> {
    return readVerpToken(await this.verpKey(), token);
  }

  /**
   * Records a provider's event (providers/): the message its correlation token names (the VERP
   * token the copy carried in the provider's own field, provider-headers.ts), else the one its
   * envelope sender names (a VERP address), else the one sent with its Message-ID to its
   * recipient; else `unmatched`. A token or address whose signature fails names nothing.
   */
  async recordProviderEvent(event: ProviderEvent): Promise<ReportOutcome> {
    const named =
      (event.verpToken ? await this.messageOfToken(event.verpToken) : null) ??
      (event.envelopeSender ? await this.messageOfAddress(event.envelopeSender) : null) ??
      (event.messageId
        ? await this.repository.messageBySmtpId(this.dataSource.manager, event.messageId, event.recipient)
        : null);
    if (!named) {
      this.logger.log({ outcome: 'unmatched', kind: event.kind, source: event.source }, 'Bounce report');
      return 'unmatched';
    }
    const { kind, source, status, diagnostic, recipient, messageId } = event;
    const original = { messageId, sitebaseId: null, returnPath: null };
    return this.record({ kind, source, status, diagnostic, recipient, original }, named);
  }

  private async find(em: EntityManager, report: BounceReport, named: number | null): Promise<ReportedMessage | null> {
    const byToken =
      named ?? (report.original.returnPath ? await this.messageOfAddress(report.original.returnPath) : null);
    if (byToken) return this.repository.message(em, byToken);
    const { sitebaseId, messageId } = report.original;
    if (!sitebaseId || !messageId) return null;
    const m = await this.repository.message(em, sitebaseId);
    // The header alone is anyone's to write: the Message-ID, which only the recipient saw, must match.
    return m && m.smtpMessageId !== null && m.smtpMessageId === messageId ? m : null;
  }

  /** The policy: what this report makes of the address, or null (a soft bounce under the limit). */
  private async verdict(
    em: EntityManager,
    siteId: number,
    email: string,
    report: BounceReport,
  ): Promise<'bounced' | 'complained' | null> {
    if (report.kind === 'complaint') return 'complained';
    if (report.kind === 'hard') return 'bounced';
    const { settings } = await this.sites.profileOf(siteId, em);
    const limit = settings.email?.softBounceLimit ?? this.config.BOUNCE_SOFT_LIMIT;
    const days = settings.email?.softBounceWindowDays ?? this.config.BOUNCE_SOFT_WINDOW_DAYS;
    return (await this.repository.softBounces(em, siteId, email, days)) >= limit ? 'bounced' : null;
  }
}
