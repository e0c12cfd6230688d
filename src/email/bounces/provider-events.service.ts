import { Injectable } from '@nestjs/common';
import { BadRequestProblem, NotFoundProblem, UnauthorizedProblem } from '../../common/errors/problems';
import { AppConfig } from '../../config/app-config';
import { BouncesService, ReportOutcome } from './bounces.service';
import { MAILGUN_TOLERANCE_SECONDS, mailgunToken, parseMailgun, verifyMailgun } from './providers/mailgun';
import { parsePostmark, verifyPostmark } from './providers/postmark';
import { MalformedEvent, Parsed } from './providers/provider-event';

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

  constructor(
    private readonly config: AppConfig,
    private readonly bounces: BouncesService,
  ) {}

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

  private async record(read: () => Parsed): Promise<ProviderOutcome> {
    let parsed: Parsed;
    try {
      parsed = read();
    } catch (err) {
      if (err instanceof MalformedEvent) throw new BadRequestProblem('malformed_event', err.message);
      throw err;
    }
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

/** The body's JSON (RequestBodyGuard parsed it once already: an object). */
function parse(raw: Buffer, otherwise?: object): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    if (otherwise) return otherwise;
    throw new BadRequestProblem('malformed_event', 'The body is not JSON');
  }
}
