import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';
import { SiteUserEntity } from './site-user.entity';

/** A signed-in session: an opaque token, stored as its SHA-256, bound to one site. */
@Entity('user_sessions')
@Index('user_sessions_token_hash_key', ['tokenHash'], { unique: true })
@Index('user_sessions_user_id_idx', ['userId'])
// Retention (USER_SESSION_RETENTION_DAYS): the longest expired first.
@Index('user_sessions_expires_at_idx', ['expiresAt'])
export class UserSessionEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @RefColumn() userId: number;
  @ManyToOne(() => SiteUserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: SiteUserEntity;
  /** Hex SHA-256 of the token; the token itself is never stored. */
  @Column({ type: 'text' }) tokenHash: string;
  @Column({ type: 'timestamptz', precision: 3 }) expiresAt: Date;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) revokedAt: Date | null;
  @Column({ type: 'text', nullable: true }) ip: string | null;
  @Column({ type: 'text', nullable: true }) userAgent: string | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
