import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';
import type { ContentSnapshot } from '../content-snapshot';
import { ContentItemEntity } from './content-item.entity';

export type RevisionAction =
  'created' | 'updated' | 'published' | 'scheduled' | 'unpublished' | 'archived' | 'restored';
export type ActorType = 'key' | 'user' | 'system';

/** A full snapshot of an item after one change; history is only ever appended to. */
@Entity('content_revisions')
@Index('content_revisions_content_id_number_key', ['contentId', 'number'], { unique: true })
@Index('content_revisions_site_id_idx', ['siteId'])
export class ContentRevisionEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @RefColumn() contentId: number;
  @ManyToOne(() => ContentItemEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'content_id' })
  content?: ContentItemEntity;
  /** 1, 2, 3 … per item; equals the item's version after this change. */
  @Column({ type: 'integer' }) number: number;
  @Column({ type: 'text' }) action: RevisionAction;
  @Column({ type: 'jsonb' }) snapshot: ContentSnapshot;
  /** Who made the change: an API key, a site user, or the system (the scheduler, a deleted media item). */
  @Column({ type: 'text' }) actorType: ActorType;
  @RefColumn({ nullable: true }) actorId: number | null;
  /** For `restored`: the revision whose fields came back. */
  @Column({ type: 'integer', nullable: true }) restoredFrom: number | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
