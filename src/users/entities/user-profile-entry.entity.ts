import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { idTransformer } from '../../database/id.transformer';
import { RefColumn } from '../../database/columns';
import { SiteUserEntity } from './site-user.entity';

/** One key of a user's profile: a JSON value of at most 16 KB (docs/users.md). */
@Entity('user_profile_entries')
export class UserProfileEntryEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) userId: number;
  @PrimaryColumn({ type: 'text', collation: 'C' }) key: string;
  @ManyToOne(() => SiteUserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: SiteUserEntity;
  @RefColumn() siteId: number;
  /** SQL NULL stands for the JSON value null. */
  @Column({ type: 'jsonb', nullable: true }) value: unknown;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
