import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { NotFoundProblem, TooManyRequestsProblem } from '../common/errors/problems';
import { SiteContext } from '../common/tenancy/site-context';
import { AppConfig } from '../config/app-config';
import { sql } from '../database/sql';
import { decodeAttribute } from './campaign-content';
import { TrackingKind } from './entities/tracking-event.entity';
import { NewsletterLinks } from './newsletter-links.service';
import { decodeTrackingToken, looksLikeTrackingToken, TrackingToken } from './tracking-tokens';
import { ClickBursts, machineByClient } from './tracking-rules';

/** Who made a tracking request. */
export interface TrackingClient {
  userAgent?: string;
  ip?: string;
}

interface Pending {
  siteId: number;
  campaignId: number;
  subscriptionId: number;
  kind: TrackingKind;
  linkIndex: number | null;
  machine: boolean;
  reason: string | null;
  userAgent: string | null;
  at: Date;
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
 * after the first — in one transaction (the events, the recipients' first open/click, the
 * campaign's and links' counters). A failed flush fails its requests (nothing of it stays). A
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
    private readonly dataSource: DataSource,
    private readonly tokens: NewsletterLinks,
    private readonly config: AppConfig,
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
      const stored = await this.dataSource.transaction((em) => this.write(em, batch));
      for (const e of batch) e.resolve(stored.has(`${e.campaignId}:${e.subscriptionId}`));
    } catch (err) {
      this.logger.error({ err, events: batch.length }, 'Tracking events could not be written; their requests failed');
      for (const e of batch) e.reject(err);
    } finally {
      this.flushing = false;
      if (this.buffer.length > 0) this.schedule();
    }
  }

  /** One batch: the events, the recipients' firsts, and the counters. Answers the recipients that exist. */
  private async write(em: EntityManager, batch: Pending[]): Promise<Set<string>> {
    const { rows } = await sql<{
      campaign_id: number;
      subscription_id: number;
      kind: TrackingKind;
      link_index: number | null;
      machine: boolean;
    }>(
      em,
      `INSERT INTO newsletter_tracking_events
         (site_id, campaign_id, subscription_id, kind, link_index, machine, machine_reason, user_agent, created_at)
       SELECT e.site_id, e.campaign_id, e.subscription_id, e.kind, e.link_index,
              e.machine OR coalesce(r.delivered_at, r.created_at) > e.at - make_interval(secs => $10),
              coalesce(e.reason, CASE WHEN coalesce(r.delivered_at, r.created_at) > e.at - make_interval(secs => $10)
                                      THEN 'soon_after_delivery' END),
              e.ua, e.at
         FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::int[], $6::bool[], $7::text[], $8::text[],
                     $9::timestamptz[]) AS e(site_id, campaign_id, subscription_id, kind, link_index, machine, reason, ua, at)
         JOIN newsletter_campaign_recipients r
           ON r.campaign_id = e.campaign_id AND r.subscription_id = e.subscription_id AND r.site_id = e.site_id
       RETURNING campaign_id, subscription_id, kind, link_index, machine`,
      [
        batch.map((e) => e.siteId),
        batch.map((e) => e.campaignId),
        batch.map((e) => e.subscriptionId),
        batch.map((e) => e.kind),
        batch.map((e) => e.linkIndex),
        batch.map((e) => e.machine),
        batch.map((e) => e.reason),
        batch.map((e) => e.userAgent),
        batch.map((e) => e.at),
        this.config.NEWSLETTER_MACHINE_WINDOW_SECONDS,
      ],
      { bigints: ['campaign_id', 'subscription_id'] },
    );
    const stored = new Set(rows.map((r) => `${r.campaign_id}:${r.subscription_id}`));
    if (rows.length === 0) return stored;

    const totals = new Map<number, number[]>(); // opens, machineOpens, clicks, machineClicks, and the 4 uniques
    const bump = (campaign: number, i: number, n = 1) => {
      const t = totals.get(campaign) ?? [0, 0, 0, 0, 0, 0, 0, 0];
      t[i] += n;
      totals.set(campaign, t);
    };
    const links = new Map<string, [number, number, number, number]>();
    const firsts: Record<'opened_at' | 'machine_opened_at' | 'clicked_at' | 'machine_clicked_at', Set<string>> = {
      opened_at: new Set(),
      machine_opened_at: new Set(),
      clicked_at: new Set(),
      machine_clicked_at: new Set(),
    };
    for (const r of rows) {
      const pair = `${r.campaign_id}:${r.subscription_id}`;
      if (r.kind === 'open') {
        bump(r.campaign_id, r.machine ? 1 : 0);
        firsts[r.machine ? 'machine_opened_at' : 'opened_at'].add(pair);
      } else {
        bump(r.campaign_id, r.machine ? 3 : 2);
        firsts[r.machine ? 'machine_clicked_at' : 'clicked_at'].add(pair);
        const key = `${r.campaign_id}:${r.link_index}`;
        const l = links.get(key) ?? [r.campaign_id, r.link_index ?? 0, 0, 0];
        l[r.machine ? 3 : 2] += 1;
        links.set(key, l);
      }
    }
    const columns = ['opened_at', 'machine_opened_at', 'clicked_at', 'machine_clicked_at'] as const;
    for (const [i, column] of columns.entries()) {
      if (firsts[column].size === 0) continue;
      const pairs = [...firsts[column]].sort().map((p) => p.split(':').map(Number));
      const { rows: firstTimes } = await sql<{ campaign_id: number }>(
        em,
        `UPDATE newsletter_campaign_recipients SET ${column} = now()
          WHERE (campaign_id, subscription_id) IN (SELECT * FROM unnest($1::bigint[], $2::bigint[]))
            AND ${column} IS NULL
          RETURNING campaign_id`,
        [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
        { bigints: ['campaign_id'] },
      );
      for (const r of firstTimes) bump(r.campaign_id, 4 + i);
    }
    const campaigns = [...totals.keys()].sort((a, b) => a - b);
    const col = (i: number) => campaigns.map((c) => totals.get(c)![i]);
    await sql(
      em,
      `UPDATE newsletter_campaign_stats s SET
         opens = s.opens + u.o, machine_opens = s.machine_opens + u.mo,
         clicks = s.clicks + u.c, machine_clicks = s.machine_clicks + u.mc,
         unique_opens = s.unique_opens + u.uo, unique_machine_opens = s.unique_machine_opens + u.umo,
         unique_clicks = s.unique_clicks + u.uc, unique_machine_clicks = s.unique_machine_clicks + u.umc
       FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[], $5::int[], $6::int[], $7::int[], $8::int[], $9::int[])
         AS u(id, o, mo, c, mc, uo, umo, uc, umc)
       WHERE s.campaign_id = u.id`,
      [campaigns, col(0), col(1), col(2), col(3), col(4), col(5), col(6), col(7)],
    );
    if (links.size > 0) {
      const l = [...links.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      await sql(
        em,
        `UPDATE newsletter_campaign_links k SET clicks = k.clicks + u.c, machine_clicks = k.machine_clicks + u.mc
           FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[]) AS u(id, i, c, mc)
          WHERE k.campaign_id = u.id AND k.link_index = u.i`,
        [l.map((x) => x[0]), l.map((x) => x[1]), l.map((x) => x[2]), l.map((x) => x[3])],
      );
    }
    return stored;
  }

  /** A link's target; indexes never change meaning, so what is cached stays true. */
  private async linkOf(site: SiteContext, campaignId: number, index: number): Promise<string> {
    let urls = this.links.get(campaignId);
    if (!urls || index >= urls.length) {
      const { rows } = await sql<{ url: string }>(
        this.dataSource,
        `SELECT url FROM newsletter_campaign_links WHERE campaign_id = $1 AND site_id = $2 ORDER BY link_index`,
        [campaignId, site.id],
      );
      urls = rows.map((r) => decodeAttribute(r.url));
      if (this.links.size >= LINKS_CACHED) this.links.clear();
      this.links.set(campaignId, urls);
    }
    const url = urls[index];
    if (url === undefined) throw new NotFoundProblem('Link');
    return url;
  }
}
