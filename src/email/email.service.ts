import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { SitesService } from '../account/sites.service';
import { NotFoundProblem, ValidationProblem } from '../common/errors/problems';
import { Page } from '../common/pagination/page';
import { QueueService } from '../common/queue/queue.service';
import { SiteContext } from '../common/tenancy/site-context';
import { EmailConfig } from './email.config';
import { EmailMessageQueryDto } from './dto/email-message.dto';
import { EMAIL_DELIVERY_JOB, EmailDeliveryJobData, MESSAGES_PER_JOB } from './email-delivery.job';
import { EmailTemplatesService } from './email-templates.service';
import { MailComposer, TemplateLookups } from './mail-composer';
import { MailBodies, noBody, ShownMessage } from './mail-bodies';
import { EmailRetention } from './email-retention';
import { EmailRepository, NewMessage } from './email.repository';
import { EmailMessageEntity } from './entities/email-message.entity';
import { checkHeaders, MailInput, MailRecipient, recipientsOf } from './mail-input';
import { chooseSender, formatAddress, parseMailFrom } from './sender-policy';
import { SendersService } from '../senders/senders.service';
import { TimeSlice } from '../common/scheduling/time-slice';
import { BouncesRepository } from './bounces/bounces.repository';
import type { SuppressionReason } from './entities/email-bounce.entity';
import { ServerKeys } from '../common/crypto/server-keys';
import { MAIL_SECRETS_KEY, sealSecrets, secretsContext } from './mail-secrets';

/** What modules that send mail use to register their template types (docs/email.md, "Adding a template type"). */
export { EmailTemplateTypes, type EmailTemplateType } from './template-types';
export { layout as mailLayout } from './builtin-template-types';
export { formatAddress } from './sender-policy';
/** What a module that renders part of a mail itself puts where a secret goes (docs/email.md, "What is stored"). */
export { mailSecret } from './mail-secrets';
/** What modules that keep their own state of an address register to hear of its suppression (docs/deliverability.md). */
export { SuppressionHooks, type AddressSuppressed, type AddressUnsuppressed } from './bounces/suppression-hooks';
export { SuppressionsService } from './bounces/suppressions.service';
/** What a module whose copies share one body registers (docs/email.md, "What is stored"). */
export { MailSources, type MailSource, type GoneCopy } from './mail-sources';
/** What a mail to send is (other modules build them). */
export { MAX_RECIPIENTS, type MailInput, type MailRecipient } from './mail-input';

/**
 * Delivery jobs are fetched by priority: a single send (a sign-in code, an order confirmation)
 * goes before the backlog of campaign copies, whoever's they are (docs/email.md, "Delivery").
 */
const TRANSACTIONAL_PRIORITY = 1;
const BULK_PRIORITY = 0;
/**
 * Mail a person needs whatever their address did before: a sign-in code still goes to an address
 * that bounced (it may work again) or an operator suppressed, never to one whose owner complained
 * (docs/deliverability.md).
 */
const ESSENTIAL_TYPES: ReadonlySet<string> = new Set(['users.otp']);
/** The `error` of a copy to a suppressed address, recorded `failed` and never sent. */
const SUPPRESSED: Record<SuppressionReason, string> = {
  bounced: 'suppressed: the address bounced',
  complained: 'suppressed: the address complained',
  manual: 'suppressed: an operator suppressed the address',
};

/**
 * Sending mail (docs/email.md). Other modules call `send(em, site, mail)` inside their own
 * transaction: the messages are recorded and their delivery queued in it, so a mail leaves
 * only if the caller's change commits. Delivery is a job (email-delivery.job.ts).
 */
@Injectable()
export class EmailService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: EmailConfig,
    private readonly queue: QueueService,
    private readonly templates: EmailTemplatesService,
    private readonly composer: MailComposer,
    private readonly bodies: MailBodies,
    private readonly retention: EmailRetention,
    private readonly sites: SitesService,
    private readonly repository: EmailRepository,
    private readonly senders: SendersService,
    private readonly bounces: BouncesRepository,
    private readonly keys: ServerKeys,
  ) {
    this.mailFrom = parseMailFrom(config.MAIL_FROM);
  }

  private readonly mailFrom: MailRecipient;

  /** Records one message per recipient and queues their delivery, in the caller's transaction. */
  async send(em: EntityManager, site: SiteContext, mail: MailInput): Promise<EmailMessageEntity[]> {
    const [messages] = await this.record(em, site, [mail], TRANSACTIONAL_PRIORITY);
    return messages;
  }

  /** Many mails at once (campaign delivery): rendered one by one, recorded and queued together. */
  async sendBatch(em: EntityManager, site: SiteContext, mails: MailInput[]): Promise<EmailMessageEntity[][]> {
    return this.record(em, site, mails, BULK_PRIORITY);
  }

  /** POST /email/send: a transaction of its own; a fixed type is its module's to send (400). */
  sendNow(site: SiteContext, mail: MailInput): Promise<EmailMessageEntity[]> {
    if (mail.templateType !== undefined && this.templates.isFixed(mail.templateType))
      throw new ValidationProblem([
        { path: 'templateType', message: 'is a built-in mail that sites cannot replace or send' },
      ]);
    return this.dataSource.transaction((em) => this.send(em, site, mail));
  }

  listMessages(site: SiteContext, query: EmailMessageQueryDto): Promise<Page<EmailMessageEntity>> {
    return this.repository.listMessages(site, query);
  }

  /**
   * A message with its body (docs/email.md, "What is stored"): as stored; rendered now from its
   * source (a campaign copy, which stores none); or none, dropped after its window or gone with
   * its source. Secret values show as placeholders either way.
   */
  async getMessage(site: SiteContext, id: number): Promise<ShownMessage> {
    const message = await this.repository.findMessage(site, id);
    if (!message) throw new NotFoundProblem('Message');
    const headers = message.extraHeaders ?? {};
    if (message.html !== null && message.text !== null)
      return { message, body: { status: 'stored', html: message.html, text: message.text, headers } };
    if (message.source === null) return { message, body: { status: 'dropped', html: null, text: null, headers } };
    const [made] = await this.bodies.render(this.dataSource.manager, [message]);
    if (noBody(made)) return { message, body: { status: 'unavailable', html: null, text: null, headers } };
    return { message, body: { status: 'rendered', html: made.html, text: made.text, headers: made.headers ?? {} } };
  }

  private async record(
    em: EntityManager,
    site: SiteContext,
    mails: MailInput[],
    priority: number,
  ): Promise<EmailMessageEntity[][]> {
    const profile = await this.sites.profileOf(site.id, em);
    const siteSender = profile.settings.email;
    // The account's verified domains: read once per call (a campaign batch's hundreds of copies
    // share it), and only when some mail names an address that could need one.
    const asks = mails.some((m) => (m.from?.email ?? siteSender?.fromAddress) !== undefined);
    const verified = asks ? await this.senders.verifiedDomains(em, site.accountId) : new Set<string>();
    // Suppressed addresses (docs/deliverability.md): one lookup for the whole call.
    const suppressed = await this.bounces.suppressed(em, site.id, [
      ...new Set(mails.flatMap((m) => recipientsOf(m).map((r) => r.email.toLowerCase()))),
    ]);
    const rows: NewMessage[] = [];
    const sizes: number[] = [];
    // A batch (a campaign's) names the same template in every mail: looked up once.
    const lookups: TemplateLookups = new Map();
    // Each copy is rendered (Liquid and the text part; CSS is inlined once per source, off the
    // event loop): other requests are served between copies once a slice of work is spent.
    const slice = new TimeSlice();
    for (const mail of mails) {
      await slice.next();
      const recipients = recipientsOf(mail);
      if (mail.source && recipients.length !== 1) throw new Error('A mail with a source has one recipient');
      // Checked with the real values (a link must be a URI), rendered with placeholders for the
      // secret ones (mail-secrets.ts): one render, and the stored copy holds no working secret.
      // A copy with a source stores its subject alone: its body is rendered when it is sent.
      const { resolved, rendered, secrets } = await this.composer.compose(
        em,
        site,
        profile.title,
        mail,
        lookups,
        mail.source !== undefined,
      );
      const askedReplyTo = mail.replyTo ?? (siteSender?.replyTo ? { email: siteSender.replyTo } : undefined);
      const sender = chooseSender(
        {
          email: mail.from?.email ?? siteSender?.fromAddress,
          name: mail.from?.name ?? siteSender?.fromName,
        },
        askedReplyTo ? formatAddress(askedReplyTo) : null,
        verified,
        this.mailFrom,
      );
      const batchId = randomUUID();
      const sealedSecrets =
        secrets && !mail.source
          ? sealSecrets(await this.keys.key(MAIL_SECRETS_KEY), secrets, secretsContext(site.id, batchId))
          : null;
      const toHeader = recipients
        .filter((r) => r.kind === 'to')
        .map(formatAddress)
        .join(', ');
      const cc = recipients
        .filter((r) => r.kind === 'cc')
        .map(formatAddress)
        .join(', ');
      for (const r of recipients) {
        const reason = suppressed.get(r.email.toLowerCase());
        // A consent mail passes a complaint or an operator's entry (confirming lifts those), never a
        // bounce: the mailbox refused mail, and the confirmation would only bounce again.
        const skip =
          reason !== undefined &&
          !(mail.consent && reason !== 'bounced') &&
          (reason === 'complained' || !ESSENTIAL_TYPES.has(mail.templateType ?? ''));
        rows.push({
          ...(skip && reason ? { suppressed: SUPPRESSED[reason] } : {}),
          siteId: site.id,
          batchId,
          recipient: r.email,
          recipientKind: r.kind,
          fromHeader: sender.from,
          replyTo: sender.replyTo,
          toHeader,
          ccHeader: cc || null,
          subject: rendered.subject,
          html: mail.source ? null : rendered.html,
          text: mail.source ? null : rendered.text,
          templateId: resolved?.template?.id ?? null,
          templateType: resolved?.type.type ?? null,
          tags: mail.tags ?? [],
          extraHeaders: mail.headers && !mail.source ? checkHeaders(mail.headers) : null,
          sealedSecrets,
          source: mail.source?.name ?? null,
          sourceId: mail.source?.id ?? null,
          sourceItemId: mail.source?.itemId ?? null,
        });
      }
      sizes.push(recipients.length);
    }
    // One INSERT for all rows: a campaign batch records hundreds of rendered copies at once.
    const saved = await this.repository.insertMessages(em, rows);
    const queued = saved.filter((m) => m.status === 'queued');
    for (let i = 0; i < queued.length; i += MESSAGES_PER_JOB) {
      const data: EmailDeliveryJobData = {
        siteId: site.id,
        messageIds: queued.slice(i, i + MESSAGES_PER_JOB).map((m) => m.id),
      };
      await this.queue.send(EMAIL_DELIVERY_JOB, data, { em, priority });
    }
    const result: EmailMessageEntity[][] = [];
    let at = 0;
    for (const n of sizes) {
      result.push(saved.slice(at, at + n));
      at += n;
    }
    return result;
  }

  /**
   * The instant before which messages' records go (EMAIL_MESSAGE_RETENTION_DAYS): a campaign's
   * recipient rows follow them (docs/deployment.md, "Storage and retention").
   */
  recordCutoff(): Date {
    return this.retention.recordCutoff();
  }

  /**
   * Mails of the account recorded and not yet sent (queued or being sent), counted up to
   * `atMost`: the campaign sender's fair share of the delivery queue (docs/newsletter.md).
   */
  unsentOfAccount(accountId: number, atMost: number): Promise<number> {
    return this.repository.unsentOfAccount(accountId, atMost);
  }
}
