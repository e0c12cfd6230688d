import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { NotFoundProblem, TooManyRequestsProblem } from '../../common/errors/problems';
import { SiteContext } from '../../common/tenancy/site-context';
import { NewsletterConfig } from '../newsletter.config';
import { decodeAttribute } from '../campaigns/campaign-content';
import { TrackingKind } from '../entities/tracking-event.entity';
import { NewsletterLinks } from '../links/newsletter-links.service';
import { decodeTrackingToken, looksLikeTrackingToken, TrackingToken } from './tracking-tokens';
import { ClickBursts, machineByClient } from './tracking-rules';
import { TrackingRepository, TrackingWrite } from './tracking.repository';

/** Who made a tracking request. */
export interface TrackingClient {
  userAgent?: string;
  ip?: string;
}

interface Pending extends TrackingWrite {
  resolve: (stored: boolean) => void;
  reject: (err: unknown) => void;
}

/** One token counted at most this often a minute in an instance; more is a 429, never counted. */
const TOKEN_HITS_PER_MINUTE = 30;
const LINKS_CACHED = 10_000;

/**
 * Open and click ingestion (docs/newsletter.md, "Tracking"). A request is answered only once its
 * event is committed (acknowledged == stored): events wait in an in-process buffer that one
 * writer flushes as a batch — at NEWSLETTER_TRACKING_BATCH events, or NEWSLETTER_TRACKING_FLUSH_MS
 * after the first — in one statement (the events, the recipients' first open/click, the
 * campaign's and links' counters: one call of a database function, one round trip). A failed flush fails its requests (nothing of it stays). A
 * signed token of a recipient that no longer exists (erased) is not stored and answers 404.
 */
@Injectable()
export class TrackingService implements OnModuleDestroy {
  private readonly logger = new Logger('Tracking');
  private buffer: Pending[] = [];
  private flushing = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly bursts = new ClickBursts();
  private readonly hits = new Map<string, { minute: number; n: number }>();
  private readonly links = new Map<number, string[]>();

  constructor(
    private readonly repository: TrackingRepository,
    private readonly tokens: NewsletterLinks,
    private readonly config: NewsletterConfig,
  ) {}

  /** Records an open; 404 for a forged token (before any row of the campaign is read). */
  async open(site: SiteContext, token: string, client: TrackingClient): Promise<void> {
    const claims = await this.verify(site, token, 'open');
    await this.store(site, claims, null, client);
  }

  /** Records a click and answers where it leads. */
  async click(site: SiteContext, token: string, client: TrackingClient): Promise<string> {
    const claims = await this.verify(site, token, 'click');
    const url = await this.linkOf(site, claims.campaignId, claims.linkIndex!);
    await this.store(site, claims, claims.linkIndex!, client);
    return url;
  }

  async onModuleDestroy(): Promise<void> {
    while (this.buffer.length > 0 || this.flushing) {
      if (!this.flushing) await this.flush();
      else await new Promise((r) => setTimeout(r, 5));
    }
  }

  private async verify(site: SiteContext, token: string, kind: TrackingKind): Promise<TrackingToken> {
    if (!looksLikeTrackingToken(token, kind)) throw new NotFoundProblem('Link');
    const secret = await this.tokens.secretIfAny(site.id);
    const claims = secret ? decodeTrackingToken(secret, token, kind) : null;
    if (!claims) throw new NotFoundProblem('Link');
    this.throttle(token);
    return claims;
  }

  private throttle(token: string): void {
    const minute = Math.floor(Date.now() / 60_000);
    const seen = this.hits.get(token);
    if (!seen || seen.minute !== minute) {
      if (this.hits.size > 100_000) this.hits.clear();
      this.hits.set(token, { minute, n: 1 });
      return;
    }
    seen.n += 1;
    if (seen.n > TOKEN_HITS_PER_MINUTE) throw new TooManyRequestsProblem(60 - Math.floor((Date.now() / 1000) % 60));
  }

  private async store(site: SiteContext, t: TrackingToken, linkIndex: number | null, client: TrackingClient) {
    let reason = machineByClient(client.userAgent, client.ip);
    if (!reason && t.kind === 'click' && this.bursts.isBurst(`${t.campaignId}:${t.subscriptionId}`, linkIndex ?? 0))
      reason = 'many_links_at_once';
    const stored = await new Promise<boolean>((resolve, reject) => {
      this.buffer.push({
        siteId: site.id,
        campaignId: t.campaignId,
        subscriptionId: t.subscriptionId,
        kind: t.kind,
        linkIndex,
        machine: reason !== null,
        reason,
        userAgent: client.userAgent ? client.userAgent.slice(0, 300) : null,
        at: new Date(),
        resolve,
        reject,
      });
      this.schedule();
    });
    if (!stored) throw new NotFoundProblem('Link');
  }

  private schedule(): void {
    if (this.flushing) return;
    if (this.buffer.length >= this.config.NEWSLETTER_TRACKING_BATCH) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      void this.flush();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.config.NEWSLETTER_TRACKING_FLUSH_MS);
    }
  }

  private async flush(): Promise<void> {
    if (this.flushing || this.buffer.length === 0) return;
    this.flushing = true;
    const batch = this.buffer.splice(0, this.config.NEWSLETTER_TRACKING_BATCH);
    try {
      const stored = await this.write(batch);
      for (const e of batch) e.resolve(stored.has(`${e.campaignId}:${e.subscriptionId}`));
    } catch (err) {
      this.logger.error({ err, events: batch.length }, 'Tracking events could not be written; their requests failed');
      for (const e of batch) e.reject(err);
    } finally {
      this.flushing = false;
      if (this.buffer.length > 0) this.schedule();
    }
  }

  /** Writes a batch; answers the recipients that exist (`campaign:subscription`). */
  private async write(batch: Pending[]): Promise<Set<string>> {
    const rows = await this.repository.write(batch, this.config.NEWSLETTER_MACHINE_WINDOW_SECONDS);
    return new Set(rows.map((r) => `${r.stored_campaign}:${r.stored_subscription}`));
  }

  /** A link's target; indexes never change meaning, so what is cached stays true. */
  private async linkOf(site: SiteContext, campaignId: number, index: number): Promise<string> {
    let urls = this.links.get(campaignId);
    if (!urls || index >= urls.length) {
      urls = (await this.repository.linkUrls(site.id, campaignId)).map((url) => decodeAttribute(url));
      if (this.links.size >= LINKS_CACHED) this.links.clear();
      this.links.set(campaignId, urls);
    }
    const url = urls[index];
    if (url === undefined) throw new NotFoundProblem('Link');
    return url;
  }
}
