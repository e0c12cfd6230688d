import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';
import { idTransformer } from '../../database/id.transformer';
import { MediaItemEntity } from './media-item.entity';

/** Media categories and tags have the same shape: a name, a slug unique in the site, a description. */
abstract class MediaTermColumns {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text' }) slug: string;
  @Column({ type: 'text', default: '' }) description: string;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}

@Entity('media_categories')
@Index('media_categories_site_id_slug_key', ['siteId', 'slug'], { unique: true })
@Index('media_categories_site_id_id_idx', ['siteId', 'id'])
export class MediaCategoryEntity extends MediaTermColumns {
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
}

@Entity('media_tags')
@Index('media_tags_site_id_slug_key', ['siteId', 'slug'], { unique: true })
@Index('media_tags_site_id_id_idx', ['siteId', 'id'])
export class MediaTagEntity extends MediaTermColumns {
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
}

/** Assignment of a media item to a category; deleting either side removes it. */
@Entity('media_item_categories')
@Index('media_item_categories_category_id_idx', ['categoryId', 'mediaId'])
export class MediaItemCategoryEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) mediaId: number;
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) categoryId: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => MediaItemEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'media_id' })
  media?: MediaItemEntity;
  @ManyToOne(() => MediaCategoryEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'category_id' })
  category?: MediaCategoryEntity;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
}

@Entity('media_item_tags')
@Index('media_item_tags_tag_id_idx', ['tagId', 'mediaId'])
export class MediaItemTagEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) mediaId: number;
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) tagId: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => MediaItemEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'media_id' })
  media?: MediaItemEntity;
  @ManyToOne(() => MediaTagEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tag_id' })
  tag?: MediaTagEntity;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
}
