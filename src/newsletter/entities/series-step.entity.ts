import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';
import { SeriesEntity } from './series.entity';

/**
 * One mail of a series, sent `delaySeconds` after the previous step (the first: after the
 * person joined). Content is HTML in the `newsletter.campaign` template type, or a site
 * template of that type (`templateId`) given the same data.
 */
@Entity('newsletter_series_steps')
// A series' steps in order.
@Index('newsletter_series_steps_series_id_position_idx', ['seriesId', 'position'])
export class SeriesStepEntity {
  @IdColumn() id: number;
  @RefColumn() seriesId: number;
  @ManyToOne(() => SeriesEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'series_id' })
  series?: SeriesEntity;
  @RefColumn() siteId: number;
  /** 1, 2, … in the series' order. */
  @Column({ type: 'integer' }) position: number;
  @Column({ type: 'integer' }) delaySeconds: number;
  @Column({ type: 'text' }) subject: string;
  @Column({ type: 'text', default: '' }) previewText: string;
  @Column({ type: 'text', nullable: true }) html: string | null;
  /** An email template of the site (type `newsletter.campaign`); no foreign key: a deleted one falls back to the type's published template. */
  @RefColumn({ nullable: true }) templateId: number | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
