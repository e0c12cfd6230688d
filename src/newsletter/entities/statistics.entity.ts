import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { RefColumn } from '../../database/columns';
import { idTransformer } from '../../database/id.transformer';

/** A list's memberships of one status, kept by triggers on newsletter_memberships (the migration). */
@ForeignKey('newsletter_lists', ['list_id'], ['id'], { onDelete: 'CASCADE' })
@Entity('newsletter_list_counts')
export class ListCountEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) listId: number;
  @PrimaryColumn({ type: 'text' }) status: string;
  @RefColumn() siteId: number;
  @Column({ type: 'integer', default: 0 }) count: number;
}

/** Memberships of a list that became active or unsubscribed on a UTC day, kept by the same triggers. */
@ForeignKey('newsletter_lists', ['list_id'], ['id'], { onDelete: 'CASCADE' })
@Entity('newsletter_list_daily')
@Index('newsletter_list_daily_site_id_day_idx', ['siteId', 'day'])
export class ListDailyEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) listId: number;
  @PrimaryColumn({ type: 'date' }) day: string;
  @RefColumn() siteId: number;
  @Column({ type: 'integer', default: 0 }) joined: number;
  @Column({ type: 'integer', default: 0 }) unsubscribed: number;
}
