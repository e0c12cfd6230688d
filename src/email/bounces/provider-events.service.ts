import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { KeyObject } from 'node:crypto';
import { BadRequestProblem, NotFoundProblem, Problem, UnauthorizedProblem } from '../../common/errors/problems';
import { BouncesConfig } from './bounces.config';
import { BouncesService, ReportOutcome } from './bounces.service';
import { MAILGUN_TOLERANCE_SECONDS, mailgunToken, parseMailgun, verifyMailgun } from './providers/mailgun';
import { parsePostmark, verifyPostmark } from './providers/postmark';
import { MalformedEvent, Parsed } from './providers/provider-event';
import { sendgridKey } from '../../config/setting-shapes';
import { parseSendgrid, SENDGRID_MAX_EVENTS, verifySendgrid } from './providers/sendgrid';
import {
  NotSns,
  parseSes,
  SNS_MAX_AGE_SECONDS,
  SNS_MAX_AHEAD_SECONDS,
  snsAge,
  snsCertificateKey,
  SnsMessage,
  snsMessage,
  snsSignatureVersionKnown,
  SnsType,
  snsUrlAllowed,
  verifySns,
} from './providers/ses';
import { HttpsSnsClient, SNS_HTTP_CLIENT, SnsHttpClient } from './providers/sns-client';

export type ProviderOutcome = ReportOutcome | 'ignored';

/** What an SNS message made: its type, and for a Notification one outcome per recipient. */
export interface SesOutcome {
  type: SnsType;
  outcomes: ProviderOutcome[];
}

/** Signed tokens remembered for replays, at most (the oldest are dropped first). */
const MAX_SEEN = 100_000;

const notConfigured = (provider: string) => new NotFoundProblem(`${provider} webhook (not configured)`);
const refused = (detail: string) => new UnauthorizedProblem('invalid_signature', detail);
/** SNS out of reach (its certificate, a SubscribeURL): a 503, which SNS retries; a 4xx it would not. */
const snsUnavailable = (detail: string) =>
  new Problem({
    status: 503,
    code: 'sns_unavailable',
    title: 'Amazon SNS did not answer',
    detail,
    headers: { 'Retry-After': '60' },
  });

/**
 * Bounces and complaints from the operator's relay (docs/deliverability.md, "From a provider"):
 * each call is verified first (a provider without its setting is a 404, a bad or missing
 * signature a 401 that changes nothing), then read into one ProviderEvent and recorded as a DSN
 * is (BouncesService: once per message and kind).
 */
@Injectable()
export class ProviderEventsService {
  /** Mailgun tokens seen while their timestamp is fresh, with when they expire (ms). */
  private readonly seen = new Map<string, number>();
  private readonly sendgridKey: KeyObject | null;
  private readonly sesTopics: Set<string>;
  private readonly sns: SnsHttpClient;
  private readonly logger = new Logger('ProviderEvents');

  constructor(
    private readonly config: BouncesConfig,
    private readonly bounces: BouncesService,
    @Optional() @Inject(SNS_HTTP_CLIENT) sns?: SnsHttpClient,
  ) {
    this.sns = sns ?? new HttpsSnsClient();
    this.sesTopics = new Set(config.SES_SNS_TOPIC_ARNS);
    const base64 = config.SENDGRID_WEBHOOK_PUBLIC_KEY;
    this.sendgridKey = base64 ? sendgridKey(base64) : null;
    if (base64 && !this.sendgridKey)
      throw new Error('SENDGRID_WEBHOOK_PUBLIC_KEY must be the base64 DER (SPKI) of an ECDSA P-256 public key');
  }

  async mailgun(raw: Buffer): Promise<ProviderOutcome> {
    const key = this.config.MAILGUN_WEBHOOK_SIGNING_KEY;
    if (!key) throw notConfigured('Mailgun');
    // Unreadable bytes carry no signature: a 401 like any unsigned call.
    const body = parse(raw, {});
    const check = verifyMailgun(body, key, Math.floor(Date.now() / 1000));
    if (check === 'stale') throw refused('The signature is older than 5 minutes (or from a clock ahead)');
    if (check !== 'ok') throw refused('The body’s signature is missing or is not Mailgun’s');
    // A replayed call (the same signed token) changes nothing, whatever its event says.
    if (!this.firstSight(`mailgun:${mailgunToken(body)}`)) return 'duplicate';
    return this.record(() => parseMailgun(body));
  }

  async postmark(raw: Buffer, token: string | string[] | undefined): Promise<ProviderOutcome> {
    const expected = this.config.POSTMARK_WEBHOOK_TOKEN;
    if (!expected) throw notConfigured('Postmark');
    if (!verifyPostmark(token, expected)) throw refused('The webhook token is missing or wrong');
    const body = parse(raw);
    return this.record(() => parsePostmark(body));
  }

  /** SendGrid's batch: every event is read before any is recorded (one malformed: a 400, nothing changed). */
  async sendgrid(
    raw: Buffer,
    signature: string | string[] | undefined,
    timestamp: string | string[] | undefined,
  ): Promise<ProviderOutcome[]> {
    const key = this.sendgridKey;
    if (!key) throw notConfigured('SendGrid');
    const check = verifySendgrid(signature, timestamp, raw, key, Math.floor(Date.now() / 1000));
    if (check === 'stale') throw refused('The signed timestamp is more than 5 minutes away from now');
    if (check !== 'ok') throw refused('The event webhook signature is missing or is not SendGrid’s');
    const body = parse(raw);
    if (!Array.isArray(body) || body.length > SENDGRID_MAX_EVENTS)
      throw new BadRequestProblem(
        'malformed_event',
        `The body must be an array of at most ${SENDGRID_MAX_EVENTS} events`,
      );
    const events = body.map((item) => read(() => parseSendgrid(item)));
    // The same signature again is a replay (ECDSA signatures differ per signing, SendGrid's retries too).
    if (!this.firstSight(`sendgrid:${signature as string}`)) return events.map(() => 'duplicate' as const);
    const outcomes: ProviderOutcome[] = [];
    for (const event of events) outcomes.push(await this.recordParsed(event));
    return outcomes;
  }

  /**
   * Amazon SES through SNS: checked in this order, each refusal a 401 that fetches and changes
   * nothing: an SNS message of a listed topic, at most an hour old, signature version 1 or 2, its
   * certificate (and a confirmation's SubscribeURL) on an SNS host; only then is the certificate
   * fetched (503 when SNS does not answer, which SNS retries) and the signature verified.
   */
  async ses(raw: Buffer): Promise<SesOutcome> {
    if (this.sesTopics.size === 0) throw notConfigured('Amazon SES');
    let message: SnsMessage;
    try {
      message = snsMessage(parse(raw, {}));
    } catch (err) {
      if (err instanceof NotSns) throw refused(`The body is not a signed SNS message: ${err.message}`);
      throw err;
    }
    if (!this.sesTopics.has(message.TopicArn)) throw refused('The message’s TopicArn is not one of SES_SNS_TOPIC_ARNS');
    const age = snsAge(message.Timestamp, Date.now());
    if (age === 'stale') throw refused('The SNS message is more than an hour old (or from a clock ahead)');
    if (age !== 'ok') throw refused('The SNS message’s Timestamp is not an ISO 8601 UTC time');
    if (!snsSignatureVersionKnown(message.SignatureVersion)) throw refused('SignatureVersion must be 1 or 2');
    if (!snsUrlAllowed(message.SigningCertURL, 'certificate'))
      throw refused('SigningCertURL is not an https .pem URL on an Amazon SNS host');
    if (message.Type !== 'Notification' && !snsUrlAllowed(message.SubscribeURL!, 'subscribe'))
      throw refused('SubscribeURL is not an https URL on an Amazon SNS host');
    if (!verifySns(message, await this.snsKey(message.SigningCertURL)))
      throw refused('The SNS signature does not verify with its certificate');

    const topic = message.TopicArn;
    if (message.Type === 'SubscriptionConfirmation') {
      try {
        await this.sns.confirmSubscription(message.SubscribeURL!);
      } catch {
        this.logger.warn({ topic }, 'SNS subscription not confirmed: SubscribeURL did not answer 200');
        throw snsUnavailable('The SubscribeURL did not answer; the subscription is not confirmed');
      }
      this.logger.log({ topic }, 'SNS subscription confirmed');
      return { type: message.Type, outcomes: [] };
    }
    if (message.Type === 'UnsubscribeConfirmation') {
      this.logger.log({ topic }, 'SNS unsubscribe confirmation received (nothing done)');
      return { type: message.Type, outcomes: [] };
    }
    const events = readAll(() => parseSes(message.Message));
    // SNS retries a message with its MessageId: the same one again changes nothing.
    const replay = `ses:${message.MessageId}`;
    if (this.hasSeen(replay)) return { type: message.Type, outcomes: events.map(() => 'duplicate' as const) };
    const outcomes: ProviderOutcome[] = [];
    for (const event of events) outcomes.push(await this.recordParsed(event));
    // Remembered once recorded (a failure midway is retried by SNS), while its Timestamp verifies.
    this.remember(replay, (SNS_MAX_AGE_SECONDS + SNS_MAX_AHEAD_SECONDS) * 1000);
    return { type: message.Type, outcomes };
  }

  /** The certificate's key: fetched through the SNS client (which keeps it); 503 when SNS does not answer. */
  private async snsKey(url: string): Promise<KeyObject> {
    let pem: string;
    try {
      pem = await this.sns.certificate(url);
    } catch {
      this.logger.warn({ host: new URL(url).hostname }, 'SNS signing certificate could not be fetched');
      throw snsUnavailable('The SNS signing certificate could not be fetched');
    }
    const key = snsCertificateKey(pem, Date.now());
    if (!key) throw refused('SigningCertURL does not hold a current RSA certificate');
    return key;
  }

  private record(parse: () => Parsed): Promise<ProviderOutcome> {
    return this.recordParsed(read(parse));
  }

  private async recordParsed(parsed: Parsed): Promise<ProviderOutcome> {
    return parsed === 'ignored' ? 'ignored' : this.bounces.recordProviderEvent(parsed);
  }

  /** Whether this key was not seen within the tolerance (remembers it). */
  private firstSight(key: string): boolean {
    if (this.hasSeen(key)) return false;
    // Twice the tolerance: a timestamp may be that far ahead of our clock and still verify.
    this.remember(key, 2 * MAILGUN_TOLERANCE_SECONDS * 1000);
    return true;
  }

  private hasSeen(key: string): boolean {
    return (this.seen.get(key) ?? 0) > Date.now();
  }

  /** Remembers a replay key for `ms` (the oldest entries go first, expired or past MAX_SEEN). */
  private remember(key: string, ms: number): void {
    const now = Date.now();
    for (const [k, expires] of this.seen) {
      if (expires > now && this.seen.size < MAX_SEEN) break;
      this.seen.delete(k);
    }
    this.seen.set(key, now + ms);
  }
}

/** An adapter's reading; a MalformedEvent is a 400. */
function read(parse: () => Parsed): Parsed {
  try {
    return parse();
  } catch (err) {
    if (err instanceof MalformedEvent) throw new BadRequestProblem('malformed_event', err.message);
    throw err;
  }
}

/** Every event of a payload; one MalformedEvent is a 400 for all. */
function readAll(parse: () => Parsed[]): Parsed[] {
  try {
    return parse();
  } catch (err) {
    if (err instanceof MalformedEvent) throw new BadRequestProblem('malformed_event', err.message);
    throw err;
  }
}

/** The body's JSON (RequestBodyGuard parsed it once already: an object). */
function parse(raw: Buffer, otherwise?: object): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    if (otherwise) return otherwise;
    throw new BadRequestProblem('malformed_event', 'The body is not JSON');
  }
}
