import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { processStopping, unlessStopping } from '../common/process-stopping';
import { DatabaseConfig } from '../config/database.config';

/** Channels the database triggers notify (migration 1795290000000-change-notifications). */
export type ChangeChannel = 'sitebase_credentials' | 'sitebase_sites' | 'sitebase_sessions' | 'sitebase_site_data';
const CHANNELS: ChangeChannel[] = ['sitebase_credentials', 'sitebase_sites', 'sitebase_sessions', 'sitebase_site_data'];

/**
 * What a handler hears: the notification's payload (`sitebase_site_data`: the site's id), or
 * `undefined` when anything may have changed (the connection (re)started, or a change without one).
 */
export type ChangeHandler = (payload?: string) => void;

/** An instance asks every listening instance to answer once it has read what came before. */
const PING = 'sitebase_ping';
const PONG = 'sitebase_pong';
/** The listening connections' name, by which the instances are counted. */
const LISTENER = 'sitebase-notifications';

const RECONNECT_MS = 1000;
/** How long a revoking request waits for every instance to have read its change (then it answers anyway). */
const HEARD_WITHIN_MS = 1000;

/**
 * One LISTEN connection per instance for the triggers that announce changes to what instances
 * cache (keys, accounts, sites). A trigger's NOTIFY is delivered when its transaction commits,
 * to every instance, whichever instance or operator made the change.
 *
 * `live` is false while the connection is down: a cache must not serve then, because it could
 * miss a change. Subscribers are also called on every (re)connect, to drop what they hold.
 */
@Injectable()
export class ChangeNotifications implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('ChangeNotifications');
  private readonly handlers = new Map<ChangeChannel, ChangeHandler[]>();
  private client?: Client;
  private closed = false;
  private timer?: NodeJS.Timeout;
  live = false;
  private readonly heard = new Map<ChangeChannel, number>();
  /** Pings this instance sent, by token: the answers still awaited. */
  private readonly rounds = new Map<string, { left: number; finish: () => void }>();

  constructor(private readonly config: DatabaseConfig) {}

  /** `handler` runs on every change to the channel, and whenever the connection (re)starts. */
  subscribe(channel: ChangeChannel, handler: ChangeHandler): void {
    this.handlers.set(channel, [...(this.handlers.get(channel) ?? []), handler]);
  }

  /**
   * A change this instance just committed: its own subscribers hear of it now, not when the
   * trigger's NOTIFY comes back, so the caller's next request already sees it.
   */
  changed(channel: ChangeChannel, payload?: string): void {
    this.fire(channel, payload);
  }

  /** How many notifications of `channel` this instance has heard. */
  mark(channel: ChangeChannel): number {
    return this.heard.get(channel) ?? 0;
  }

  /**
   * A change this instance just committed, which every instance must act on before the caller
   * is answered (a revoked key or session): its own subscribers hear of it now, then this asks
   * every listening instance (counted in pg_stat_activity) to answer a ping, and waits (at most
   * `HEARD_WITHIN_MS`) for all the answers. PostgreSQL delivers notifications to each listener
   * in commit order, and the ping commits after the change, so an instance answers it only
   * once it has read the change and dropped its cache: the caller's next request, wherever it
   * lands, no longer races the notification there (it did under load, when "sent to every
   * instance" was all this waited for).
   */
  async changedEverywhere(channel: ChangeChannel, payload?: string): Promise<void> {
    this.fire(channel, payload);
    const client = this.client;
    if (!this.live || !client) return;
    const token = randomUUID();
    let finish = () => {};
    const answered = new Promise<void>((resolve) => (finish = resolve));
    const round = { left: Infinity, finish };
    this.rounds.set(token, round);
    const timer = setTimeout(finish, HEARD_WITHIN_MS);
    try {
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
        [LISTENER],
      );
      round.left = rows[0].n;
      await client.query('SELECT pg_notify($1, $2)', [PING, token]);
      await answered;
    } catch {
      // The connection went down meanwhile: the caches are bypassed until it is back.
    } finally {
      clearTimeout(timer);
      this.rounds.delete(token);
    }
  }

  async onModuleInit(): Promise<void> {
    await this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.live = false;
    if (this.timer) clearTimeout(this.timer);
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({
      connectionString: this.config.DATABASE_URL,
      application_name: LISTENER,
    });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.live = false;
      this.resetAll();
      for (const round of this.rounds.values()) round.finish();
      // A stop of the process ends this connection too (the embedded PostgreSQL may go first).
      if (this.closed || processStopping()) return;
      if (err)
        unlessStopping(() => {
          if (!this.closed) this.logger.warn({ err }, 'Change notifications lost; caches bypassed until they are back');
        });
      this.timer = setTimeout(() => void this.connect(), RECONNECT_MS);
      this.timer.unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (msg) => this.receive(msg.channel, msg.payload));
    try {
      this.client = client;
      await client.connect();
      for (const channel of [...CHANNELS, PING, PONG]) await client.query(`LISTEN ${channel}`);
      if (this.client !== client) return;
      this.resetAll();
      this.live = true;
    } catch (err) {
      lost(err as Error);
      await client.end().catch(() => undefined);
    }
  }

  /** Every notification, in the order PostgreSQL delivers them. */
  private receive(channel: string, payload: string | undefined): void {
    if (channel === PING) {
      // Everything committed before the ping has been read (and acted on) by now.
      void this.client?.query('SELECT pg_notify($1, $2)', [PONG, payload ?? '']).catch(() => undefined);
    } else if (channel === PONG) {
      const round = payload === undefined ? undefined : this.rounds.get(payload);
      if (round && --round.left <= 0) round.finish();
    } else {
      this.hear(channel as ChangeChannel, payload || undefined);
    }
  }

  private hear(channel: ChangeChannel, payload: string | undefined): void {
    this.heard.set(channel, this.mark(channel) + 1);
    this.fire(channel, payload);
  }

  private fire(channel: ChangeChannel, payload?: string): void {
    for (const handler of this.handlers.get(channel) ?? []) handler(payload);
  }

  private resetAll(): void {
    for (const channel of CHANNELS) this.fire(channel);
  }
}
