import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { AppConfig } from '../config/app-config';

/** Channels the database triggers notify (migration 1795290000000-change-notifications). */
export type ChangeChannel = 'sitebase_credentials' | 'sitebase_sites' | 'sitebase_sessions';
const CHANNELS: ChangeChannel[] = ['sitebase_credentials', 'sitebase_sites', 'sitebase_sessions'];

const RECONNECT_MS = 1000;

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
      if (this.closed) return;
      if (err) this.logger.warn({ err }, 'Change notifications lost; caches bypassed until they are back');
      this.timer = setTimeout(() => void this.connect(), RECONNECT_MS);
      this.timer.unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (msg) => this.fire(msg.channel as ChangeChannel));
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

  private fire(channel: ChangeChannel): void {
    for (const handler of this.handlers.get(channel) ?? []) handler();
  }

  private resetAll(): void {
    for (const channel of CHANNELS) this.fire(channel);
  }
}
