import {
  Check,
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
import { NewsletterListEntity } from './newsletter-list.entity';

export const SERIES_STATUSES = ['active', 'paused'] as const;
export type SeriesStatus = (typeof SERIES_STATUSES)[number];

/**
 * A drip sequence (docs/newsletter.md, "Series"): people who become active on one of its
 * trigger lists are enrolled once and receive its steps in order.
 */
@Entity('newsletter_series')
// The operator's list, newest first (keyset on id).
@Index('newsletter_series_site_id_id_idx', ['siteId', 'id'])
@Check('newsletter_series_status_check', `"status" IN ('active', 'paused')`)
export class SeriesEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text', default: 'active' }) status: SeriesStatus;
  /** The ETag's version: every change through the API adds one. */
  @Column({ type: 'integer', default: 1 }) version: number;
  /**
   * Memberships activated up to here were looked at by the enrollment sweep (which looks a
   * little further back each time, for transactions that committed late).
   */
  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' }) enrolledThrough: Date;
  /** Only people who join a trigger list from here on are enrolled. */
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}

/** A trigger list of a series (removed with the list or the series). */
@Entity('newsletter_series_lists')
// The series a list triggers (the enrollment hook, and the cascade of a list's deletion).
@Index('newsletter_series_lists_list_id_idx', ['listId'])
export class SeriesListEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) seriesId: number;
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) listId: number;
  @ManyToOne(() => SeriesEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'series_id' })
  series?: SeriesEntity;
  @ManyToOne(() => NewsletterListEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'list_id' })
  list?: NewsletterListEntity;
  @RefColumn() siteId: number;
}
