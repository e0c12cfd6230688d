import { Injectable } from '@nestjs/common';
import type { KeyObject } from 'node:crypto';
import { BadRequestProblem, NotFoundProblem, UnauthorizedProblem } from '../../common/errors/problems';
import { AppConfig } from '../../config/app-config';
import { BouncesService, ReportOutcome } from './bounces.service';
import { MAILGUN_TOLERANCE_SECONDS, mailgunToken, parseMailgun, verifyMailgun } from './providers/mailgun';
import { parsePostmark, verifyPostmark } from './providers/postmark';
import { MalformedEvent, Parsed } from './providers/provider-event';
import { parseSendgrid, SENDGRID_MAX_EVENTS, sendgridKey, verifySendgrid } from './providers/sendgrid';

export type ProviderOutcome = ReportOutcome | 'ignored';

/** Signed tokens remembered for replays, at most (the oldest are dropped first). */
const MAX_SEEN = 100_000;

const notConfigured = (provider: string) => new NotFoundProblem(`${provider} webhook (not configured)`);
const refused = (detail: string) => new UnauthorizedProblem('invalid_signature', detail);

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

  constructor(
    private readonly config: AppConfig,
    private readonly bounces: BouncesService,
  ) {
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

  private record(parse: () => Parsed): Promise<ProviderOutcome> {
    return this.recordParsed(read(parse));
  }

  private async recordParsed(parsed: Parsed): Promise<ProviderOutcome> {
    return parsed === 'ignored' ? 'ignored' : this.bounces.recordProviderEvent(parsed);
  }

  /** Whether this key was not seen within the tolerance (remembers it). */
  private firstSight(key: string): boolean {
    const now = Date.now();
    for (const [k, expires] of this.seen) {
      if (expires > now && this.seen.size < MAX_SEEN) break;
      this.seen.delete(k);
    }
    if (this.seen.has(key)) return false;
    // Twice the tolerance: a timestamp may be that far ahead of our clock and still verify.
    this.seen.set(key, now + 2 * MAILGUN_TOLERANCE_SECONDS * 1000);
    return true;
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

/** The body's JSON (RequestBodyGuard parsed it once already: an object). */
function parse(raw: Buffer, otherwise?: object): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    if (otherwise) return otherwise;
    throw new BadRequestProblem('malformed_event', 'The body is not JSON');
  }
}
