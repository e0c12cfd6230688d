import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { AppConfig } from '../config/app-config';

/** Channels the database triggers notify (migration 1795290000000-change-notifications). */
export type ChangeChannel = 'sitebase_credentials' | 'sitebase_sites' | 'sitebase_sessions';
const CHANNELS: ChangeChannel[] = ['sitebase_credentials', 'sitebase_sites', 'sitebase_sessions'];

const RECONNECT_MS = 1000;
/** How long a revoking request waits for its change's NOTIFY to come back (then it answers anyway). */
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
  private readonly handlers = new Map<ChangeChannel, Array<() => void>>();
  private client?: Client;
  private closed = false;
  private timer?: NodeJS.Timeout;
  live = false;
  private readonly heard = new Map<ChangeChannel, number>();
  private waiters = new Map<ChangeChannel, Array<{ mark: number; done: () => void }>>();

  constructor(private readonly config: AppConfig) {}

  /** `handler` runs on every change to the channel, and whenever the connection (re)starts. */
  subscribe(channel: ChangeChannel, handler: () => void): void {
    this.handlers.set(channel, [...(this.handlers.get(channel) ?? []), handler]);
  }

  /**
   * A change this instance just committed: its own subscribers hear of it now, not when the
   * trigger's NOTIFY comes back, so the caller's next request already sees it.
   */
  changed(channel: ChangeChannel): void {
    this.fire(channel);
  }

  /** How many notifications of `channel` this instance has heard: take it before a change. */
  mark(channel: ChangeChannel): number {
    return this.heard.get(channel) ?? 0;
  }

  /**
   * A change this instance just committed, which every instance must act on before the caller
   * is answered (a revoked key or session): its own subscribers hear of it now, and this waits
   * (at most `HEARD_WITHIN_MS`) until the trigger's NOTIFY has come back to this instance. The
   * database sends it to every listening instance at the same commit, so when this instance
   * has it, the others have been sent it too: the caller's next request, wherever it lands,
   * finds the cache dropped, instead of racing the notification to that instance.
   */
  async changedEverywhere(channel: ChangeChannel, mark: number): Promise<void> {
    this.fire(channel);
    if (!this.live || this.mark(channel) > mark) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, HEARD_WITHIN_MS);
      const waiter = { mark, done };
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.set(channel, [...(this.waiters.get(channel) ?? []), waiter]);
    });
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
      application_name: 'sitebase-notifications',
    });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.live = false;
      this.resetAll();
      for (const waiting of this.waiters.values()) for (const w of waiting) w.done();
      this.waiters.clear();
      if (this.closed) return;
      if (err) this.logger.warn({ err }, 'Change notifications lost; caches bypassed until they are back');
      this.timer = setTimeout(() => void this.connect(), RECONNECT_MS);
      this.timer.unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (msg) => this.hear(msg.channel as ChangeChannel));
    try {
      this.client = client;
      await client.connect();
      for (const channel of CHANNELS) await client.query(`LISTEN ${channel}`);
      if (this.client !== client) return;
      this.resetAll();
      this.live = true;
    } catch (err) {
      lost(err as Error);
      await client.end().catch(() => undefined);
    }
  }

  private hear(channel: ChangeChannel): void {
    const count = this.mark(channel) + 1;
    this.heard.set(channel, count);
    this.fire(channel);
    const waiting = this.waiters.get(channel);
    if (!waiting) return;
    const now = waiting.filter((w) => w.mark < count);
    this.waiters.set(
      channel,
      waiting.filter((w) => w.mark >= count),
    );
    for (const w of now) w.done();
  }

  private fire(channel: ChangeChannel): void {
    for (const handler of this.handlers.get(channel) ?? []) handler();
  }

  private resetAll(): void {
    for (const channel of CHANNELS) this.fire(channel);
  }
}
