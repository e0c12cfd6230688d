import { Column, CreateDateColumn, Entity, ForeignKey, Index, JoinColumn, ManyToOne } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';
import { CollectionEntity } from './collection.entity';

/**
 * One content item in a collection. `position` is a sort key: adding at a position moves the
 * items at or after it down by one; removing leaves a gap, which changes no order.
 */
@ForeignKey('content_items', ['content_id'], ['id'], { onDelete: 'CASCADE' })
@Entity('collection_items')
@Index('collection_items_collection_id_content_id_key', ['collectionId', 'contentId'], { unique: true })
@Index('collection_items_collection_id_position_id_idx', ['collectionId', 'position', 'id'])
// Deleting content cascades here; this index keeps that delete from scanning the table.
@Index('collection_items_content_id_idx', ['contentId'])
export class CollectionItemEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @RefColumn() collectionId: number;
  @ManyToOne(() => CollectionEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'collection_id' })
  collection?: CollectionEntity;
  /**
   * Content is another module's: a plain id here (docs/foundation.md, "References across
   * modules"); the migration's foreign key deletes the item with its content.
   */
  @RefColumn() contentId: number;
  @Column({ type: 'integer' }) position: number;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) addedAt: Date;
}
