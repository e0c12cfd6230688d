import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';
import { idArrayTransformer, idTransformer } from '../../database/id.transformer';
import { ProductCategoryEntity } from './product-category.entity';

export const PRODUCT_STATUSES = ['draft', 'published', 'archived'] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];
export const TAX_BEHAVIORS = ['exclusive', 'inclusive', 'unspecified'] as const;
export type TaxBehavior = (typeof TAX_BEHAVIORS)[number];
export const RECURRING_INTERVALS = ['day', 'week', 'month', 'year'] as const;
export type RecurringInterval = (typeof RECURRING_INTERVALS)[number];
export const PROCESSOR_SYNC_STATUSES = ['pending', 'synced', 'failed'] as const;
export type ProcessorSyncStatus = (typeof PROCESSOR_SYNC_STATUSES)[number];

/** A product's last sync to the payment processor (docs/payments.md, "Catalog sync"). */
export interface ProcessorSyncState {
  status: ProcessorSyncStatus;
  /** What the processor answered to the failed sync. */
  error: string | null;
  /** When the status was set (ISO 8601). */
  at: string | null;
  /** A digest of what the last successful sync sent: a change that leaves it equal syncs nothing. */
  digest?: string | null;
  /** The digest of what the failed sync tried: the same again is not retried until re-driven or changed. */
  failedDigest?: string | null;
}

/** The words a product is found by (`?q=`), as the GIN expression index has them. */
export const PRODUCT_SEARCH_EXPRESSION =
  "(setweight(to_tsvector('simple'::regconfig, name), 'A') || setweight(to_tsvector('simple'::regconfig, description), 'B'))";

/** Something a site sells: a physical or digital good, or a recurring plan (docs/catalog.md). */
@Check('products_quantity_available_check', `(quantity_available >= 0)`)
@Check(
  'products_recurring_check',
  `(((recurring_interval IS NULL) AND (recurring_interval_count IS NULL)) OR ((recurring_interval = ANY (ARRAY['day'::text, 'week'::text, 'month'::text, 'year'::text])) AND (recurring_interval_count >= 1)))`,
)
@Check('products_status_check', `(status = ANY (ARRAY['draft'::text, 'published'::text, 'archived'::text]))`)
@Check(
  'products_tax_behavior_check',
  `(tax_behavior = ANY (ARRAY['exclusive'::text, 'inclusive'::text, 'unspecified'::text]))`,
)
@Check('products_unit_amount_check', `(unit_amount >= 0)`)
@Entity('products')
@Index('products_site_id_slug_key', ['siteId', 'slug'], { unique: true })
// Lists by position then id: every status (a key), published only (anonymous), one category.
@Index('products_site_id_position_id_idx', ['siteId', 'position', 'id'])
@Index('products_site_id_status_position_id_idx', ['siteId', 'status', 'position', 'id'])
@Index('products_category_id_position_id_idx', ['categoryId', 'position', 'id'])
// GIN indexes written by hand in the migration.
@Index('products_search_idx', { synchronize: false })
@Index('products_attachment_ids_idx', { synchronize: false })
export class ProductEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @RefColumn({ nullable: true }) categoryId: number | null;
  @ManyToOne(() => ProductCategoryEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'category_id' })
  category?: ProductCategoryEntity;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text', collation: 'C' }) slug: string;
  @Column({ type: 'text', default: '' }) slugPrefix: string;
  @Column({ type: 'text', default: '' }) description: string;
  @Column({ type: 'text', default: 'published' }) status: ProductStatus;
  /** Integer minor units of `currency`. */
  @Column({ type: 'bigint', transformer: idTransformer }) unitAmount: number;
  @Column({ type: 'text' }) currency: string;
  /** v1 `order`: lists go by it, then by id. */
  @Column({ type: 'integer', default: 0 }) position: number;
  /** Units left to sell; null: unlimited (a digital good, a plan). */
  @Column({ type: 'integer', nullable: true }) quantityAvailable: number | null;
  @Column({ type: 'text', nullable: true }) taxCode: string | null;
  @Column({ type: 'text', default: 'unspecified' }) taxBehavior: TaxBehavior;
  /** A recurring plan's period (`month`, every `recurringIntervalCount`); null: a one-off. */
  @Column({ type: 'text', nullable: true }) recurringInterval: RecurringInterval | null;
  @Column({ type: 'integer', nullable: true }) recurringIntervalCount: number | null;
  /** The names of up to three options its variants differ by (`Size`, `Colour`). */
  @Column({ type: 'text', nullable: true }) option1: string | null;
  @Column({ type: 'text', nullable: true }) option2: string | null;
  @Column({ type: 'text', nullable: true }) option3: string | null;
  @Column({ type: 'text', default: '' }) processorDescription: string;
  @Column({ type: 'text', nullable: true }) processorProductIdLive: string | null;
  @Column({ type: 'text', nullable: true }) processorProductIdTest: string | null;
  /** The processor's current Price of the product in each mode (set by the sync). */
  @Column({ type: 'text', nullable: true }) processorPriceIdLive: string | null;
  @Column({ type: 'text', nullable: true }) processorPriceIdTest: string | null;
  /** Null on a site that was never connected to a processor. */
  @Column({ type: 'jsonb', nullable: true }) processorSync: ProcessorSyncState | null;
  @Column({ type: 'bigint', array: true, default: () => "'{}'", transformer: idArrayTransformer })
  attachmentIds: number[];
  /** Bumped by every change; the ETag is built from it. */
  @Column({ type: 'integer', default: 1 }) version: number;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
