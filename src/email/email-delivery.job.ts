import { Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppMetrics } from '../common/metrics/app-metrics';
import { GroupWriter } from '../common/queue/group-writer';
import { QueueService } from '../common/queue/queue.service';
import { JobsConfig } from '../config/jobs.config';
import { BouncesConfig } from './bounces/bounces.config';
import { EmailConfig } from './email.config';
import { SendersService, SigningKey } from '../senders/senders.service';
import { DeliveryResult, EmailTransport } from './email-transport';
import { chooseSender, Mailbox, parseFromHeader, parseMailFrom } from './sender-policy';
import { ClaimedMessage, EmailDeliveryRepository, SiteMessages } from './email-delivery.repository';
import { BouncesService } from './bounces/bounces.service';
import { CopyHeaders, copyHeaders, CorrelatingProvider, correlatingProviders } from './bounces/provider-headers';
import { tokenAddress, verpToken } from './bounces/verp';
import { ServerKeys } from '../common/crypto/server-keys';
import { MAIL_SECRETS_KEY, StoredCopy, withSecrets } from './mail-secrets';
import { MailBodies, NoBody, noBody, SourcedBody } from './mail-bodies';

export const EMAIL_DELIVERY_JOB = 'email.deliver';
/** Messages one job carries: a send of up to 50 recipients is one job. */
export const MESSAGES_PER_JOB = 50;
export const EMAIL_RECOVER_JOB = 'email.recover';
/** Messages of a batch being sent or sent but not yet recorded, at most (see flush). */
const UNRECORDED = 64;
/** Jobs one instance delivers at once (2 loops of 16); each sends its messages over the pool. */
const CONCURRENCY = 2;
const BATCH_SIZE = 16;

/** The job's payload: ids, never the mail. */
export interface EmailDeliveryJobData {
  siteId: number;
  messageIds: number[];
}

/**
 * Delivers queued messages over SMTP (docs/email.md). Safe to run twice: it claims only
 * messages still queued (or abandoned mid-send), so a message the server accepted is not sent
 * again by a retry. A server that refuses for now (4xx, no connection) gets the job retried
 * with backoff (EMAIL_RETRY_LIMIT, EMAIL_RETRY_DELAY_SECONDS); a 5xx, or the last retry,
 * ends the message `failed` with the reason. Each outcome writes email.sent / email.failed.
 */
@Injectable()
export class EmailDeliveryJob implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('Email');

  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: QueueService,
    private readonly transport: EmailTransport,
    private readonly config: EmailConfig,
    private readonly bounceConfig: BouncesConfig,
    private readonly jobs: JobsConfig,
    private readonly metrics: AppMetrics,
    private readonly senders: SendersService,
    private readonly bounces: BouncesService,
    private readonly keys: ServerKeys,
    private readonly repository: EmailDeliveryRepository,
    private readonly bodies: MailBodies,
  ) {
    this.mailFrom = parseMailFrom(config.MAIL_FROM);
    this.relays = correlatingProviders(bounceConfig);
  }

  private readonly mailFrom: Mailbox;
  /** The relays whose webhooks are configured: each copy carries its VERP token in their header too. */
  private readonly relays: CorrelatingProvider[];

  onModuleInit(): void {
    this.queue.register<EmailDeliveryJobData>(EMAIL_DELIVERY_JOB, (data, job) => this.run(data, job.retryCount), {
      retryLimit: this.config.EMAIL_RETRY_LIMIT,
      retryDelaySeconds: this.config.EMAIL_RETRY_DELAY_SECONDS,
      retryBackoff: true,
      concurrency: CONCURRENCY,
      batchSize: BATCH_SIZE,
    });
    this.queue.register(EMAIL_RECOVER_JOB, async () => void (await this.recover()), {
      cron: '* * * * *',
      retryLimit: 0,
    });
  }

  /**
   * Messages recorded while no SMTP server was configured wait as `queued`: once one is, they
   * are queued for delivery at start (every instance may do it; claiming makes it harmless).
   */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.transport.configured || !this.jobs.JOBS_ENABLED) return;
    const queued = await this.requeue(await this.repository.queuedUnsent());
    if (queued > 0) this.logger.log({ messages: queued }, 'Queued messages recorded while SMTP was not configured');
  }

  /**
   * Every minute (EMAIL_RECOVER_JOB): messages claimed more than five minutes ago and still
   * `sending` belong to a sender that stopped (a killed instance): they get a delivery job
   * again, which claims them. Without this they would wait for their job's expiry (15 minutes)
   * and its retry. Answers how many messages it queued again.
   */
  async recover(): Promise<number> {
    if (!this.transport.configured) return 0;
    return this.requeue(await this.repository.abandonedClaims());
  }

  /** Queues delivery jobs for these messages; answers how many. */
  private async requeue(rows: SiteMessages[]): Promise<number> {
    let messages = 0;
    for (const row of rows) {
      const ids = row.ids.map(Number);
      messages += ids.length;
      for (let i = 0; i < ids.length; i += MESSAGES_PER_JOB) {
        await this.queue.send(EMAIL_DELIVERY_JOB, {
          siteId: row.site_id,
          messageIds: ids.slice(i, i + MESSAGES_PER_JOB),
        });
      }
    }
    return messages;
  }

  async run({ siteId, messageIds }: EmailDeliveryJobData, retryCount = 0): Promise<void> {
    if (!this.transport.configured) {
      this.logger.warn({ siteId, messageIds }, 'SMTP_URL is not set: the messages stay queued, recorded, unsent');
      return;
    }
    const lastTry = retryCount >= this.config.EMAIL_RETRY_LIMIT;
    const again = await this.together({ siteId, messageIds, lastTry });
    if (again > 0 && !lastTry) throw new Error(`${again} messages were refused for now; retrying`);
  }

  /**
   * The jobs of one fetched batch run at once; their messages are claimed in one statement and
   * their outcomes written in a few group transactions as the answers come, so a backlog of
   * one-message jobs (single sends) costs a few statements per batch rather than several per
   * message. Answers how many of this job's messages were refused for now.
   */
  private together(part: Part): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.pending.push({ part, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => void this.flush());
    });
  }

  private readonly pending: Array<{ part: Part; resolve: (again: number) => void; reject: (err: unknown) => void }> =
    [];

  private async flush(): Promise<void> {
    const waiting = this.pending.splice(0);
    try {
      const claimed = await this.claim(waiting.map((w) => w.part));
      // The signing keys of the accounts of the messages not From MAIL_FROM: one statement per
      // flush, not per message, and none when every message is From MAIL_FROM.
      const operator = this.mailFrom.email.toLowerCase();
      const keys = await this.senders.signingKeys(
        claimed.filter((m) => parseFromHeader(m.fromHeader).email.toLowerCase() !== operator).map((m) => m.siteId),
      );
      // VERP (docs/deliverability.md): each copy's envelope sender names it, and so does the
      // configured relays' own header (provider-headers.ts); the key is read once.
      const verp = this.bounces.verpEnabled ? await this.bounces.verpKey() : null;
      const tokenOf = (id: number) => (verp ? verpToken(verp, id) : null);
      // The copies' sealed codes and links (mail-secrets.ts): the key is read once.
      const sealKey = claimed.some((m) => m.sealedSecrets) ? await this.keys.key(MAIL_SECRETS_KEY) : null;
      // Copies recorded without a body (a campaign's) are rendered from their source now.
      const sourced = claimed.filter((m) => m.html === null);
      const made = sourced.length > 0 ? await this.bodies.render(this.dataSource.manager, sourced) : [];
      const bodies = new Map(sourced.map((m, i) => [m.id, made[i]]));
      const lastTry = new Map(waiting.flatMap((w) => w.part.messageIds.map((id) => [id, w.part.lastTry] as const)));
      // Each answer is written as soon as the transaction before it commits (those that came in
      // meanwhile go together): a crash resends only what the SMTP server accepted in the last
      // few milliseconds, not the whole batch (delivery is at least once; docs/email.md).
      const outcomes = new GroupWriter<[ClaimedMessage, DeliveryResult]>((done) =>
        this.dataSource.transaction((em) =>
          this.repository.settle(em, done, lastTry, this.config.EMAIL_BODY_RETENTION_DAYS === 0),
        ),
      );
      const results = await Promise.all(
        claimed.map(async (m) => {
          // At most UNRECORDED messages between the start of their sending and their written
          // answer: sending never runs ahead of the record (what a crash would send again).
          await outcomes.room(UNRECORDED);
          const body = bodies.get(m.id);
          const copy = body ? madeCopy(m, body, this.bodies) : withSecrets(stored(m), sealKey);
          let r: DeliveryResult;
          if (copy && 'error' in copy) {
            r = { ok: false, permanent: true, error: copy.error };
          } else if (copy) {
            const token = tokenOf(m.id);
            const envelope = {
              from: token ? tokenAddress(token, this.bounceConfig.BOUNCE_DOMAIN) : this.mailFrom.email,
              headers: copyHeaders(copy.extraHeaders, this.relays, token),
            };
            const { mail, dkim } = mailOf(copy, keys.get(m.siteId), this.mailFrom, envelope);
            r = await this.transport.deliver(mail, dkim);
          } else {
            r = { ok: false, permanent: true, error: 'its sealed codes and links could not be opened' };
          }
          outcomes.add([m, r]);
          return r;
        }),
      );
      await outcomes.drain();
      for (const [i, m] of claimed.entries()) {
        const r = results[i];
        const outcome = r.ok ? 'sent' : r.permanent || lastTry.get(m.id) ? 'failed' : 'deferred';
        this.metrics.emailDeliveries.inc({ outcome });
      }
      const refused = new Set(claimed.filter((_m, i) => !results[i].ok && !results[i].permanent).map((m) => m.id));
      for (const w of waiting) w.resolve(w.part.messageIds.filter((id) => refused.has(id)).length);
    } catch (err) {
      for (const w of waiting) w.reject(err);
    }
  }

  /** Claims the messages still to send and returns what sending them needs, in one statement. */
  private async claim(parts: Part[]): Promise<ClaimedMessage[]> {
    const sites = parts.flatMap((p) => p.messageIds.map(() => p.siteId));
    const ids = parts.flatMap((p) => p.messageIds);
    const rows = await this.repository.claim(sites, ids);
    return rows.sort((a, b) => a.id - b.id);
  }
}

/** A copy with a stored body (a sourced one is made by MailBodies; one whose body was dropped has none). */
function stored(m: ClaimedMessage): StoredCopy & ClaimedMessage {
  return { ...m, html: m.html ?? '', text: m.text ?? '' };
}

/** A sourced copy as its recipient gets it, or why it cannot be made. */
function madeCopy(m: ClaimedMessage, body: SourcedBody | NoBody, bodies: MailBodies): ClaimedMessage | NoBody {
  if (noBody(body)) return body;
  const filled = bodies.revealed(m, body);
  return { ...m, subject: filled.subject, html: filled.html, text: filled.text, extraHeaders: filled.headers };
}

/** One job's share of a flush. */
interface Part {
  siteId: number;
  messageIds: number[];
  lastTry: boolean;
}

/**
 * The SMTP mail of one recipient's copy: headers show To and Cc, the envelope names only them,
 * and the envelope sender (MAIL FROM, where bounces go) is the copy's VERP address, or
 * MAIL_FROM's address without BOUNCE_DOMAIN (docs/deliverability.md); `headers` are the copy's
 * own with the relays' correlation headers (provider-headers.ts). The
 * From is checked again against the account's verified domains now (docs/email.md, "Who mail
 * is From"): a copy recorded before its domain was removed goes From MAIL_FROM; one From a
 * verified domain is signed with that domain's key.
 */
function mailOf(
  m: ClaimedMessage,
  keys: Map<string, SigningKey> | undefined,
  mailFrom: Mailbox,
  envelope: { from: string; headers: CopyHeaders },
) {
  const sender = chooseSender(parseFromHeader(m.fromHeader), m.replyTo, new Set(keys?.keys()), mailFrom);
  const key = sender.signingDomain ? keys?.get(sender.signingDomain) : undefined;
  return {
    mail: {
      from: sender.from,
      to: m.toHeader,
      cc: m.ccHeader ?? undefined,
      replyTo: sender.replyTo ?? undefined,
      subject: m.subject,
      html: m.html ?? '',
      text: m.text ?? '',
      envelope: { from: envelope.from, to: [m.recipient] },
      headers: { ...envelope.headers, 'X-Sitebase-Message-Id': String(m.id) },
    },
    dkim: key,
  };
}
