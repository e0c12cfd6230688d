import { Injectable, OnModuleInit } from '@nestjs/common';
import { RetentionRegistry } from '../common/retention/retention.registry';
import { UsersConfig } from './users.config';
import { UsersRepository } from './users.repository';

/** The users module's retention rules (docs/deployment.md, "Storage and retention"). */
@Injectable()
export class UsersRetention implements OnModuleInit {
  constructor(
    private readonly registry: RetentionRegistry,
    private readonly repository: UsersRepository,
    private readonly config: UsersConfig,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      name: 'users.sessions',
      table: 'user_sessions',
      setting: 'USER_SESSION_RETENTION_DAYS',
      what: 'sessions (with their IP address and user agent) expired that many days ago',
      run: (db, limit) => this.repository.deleteExpiredSessions(db, this.config.USER_SESSION_RETENTION_DAYS, limit),
    });
    this.registry.register({
      name: 'users.otps',
      table: 'user_otps',
      setting: null,
      what: 'one-time codes expired for a day',
      run: (db, limit) => this.repository.deleteExpiredOtps(db, limit),
    });
  }
}
