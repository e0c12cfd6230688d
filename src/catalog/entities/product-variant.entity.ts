import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';
import { idTransformer } from '../../database/id.transformer';
import { ProductEntity } from './product.entity';

/**
 * One combination of a product's options (`M` / `Blue`), with its own price, stock and SKU. A
 * combination is unique per product (the index treats an absent value as a value).
 */
@Check('product_variants_quantity_available_check', `(quantity_available >= 0)`)
@Check('product_variants_unit_amount_check', `(unit_amount >= 0)`)
@Entity('product_variants')
@Index('product_variants_product_id_position_id_idx', ['productId', 'position', 'id'])
@Index('product_variants_options_key', { synchronize: false })
@Index('product_variants_site_id_sku_key', ['siteId', 'sku'], { unique: true, where: 'sku IS NOT NULL' })
export class ProductVariantEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @RefColumn() productId: number;
  @ManyToOne(() => ProductEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id' })
  product?: ProductEntity;
  @Column({ type: 'text', nullable: true }) option1Value: string | null;
  @Column({ type: 'text', nullable: true }) option2Value: string | null;
  @Column({ type: 'text', nullable: true }) option3Value: string | null;
  /** Its own price in the product's currency; null: the product's. */
  @Column({ type: 'bigint', nullable: true, transformer: idTransformer }) unitAmount: number | null;
  /** Units left of this combination; null: unlimited. */
  @Column({ type: 'integer', nullable: true }) quantityAvailable: number | null;
  @Column({ type: 'text', nullable: true }) sku: string | null;
  @Column({ type: 'integer', default: 0 }) position: number;
  /** Its own processor Product and current Price per mode (docs/payments.md, "Catalog sync"). */
  @Column({ type: 'text', nullable: true }) processorProductIdLive: string | null;
  @Column({ type: 'text', nullable: true }) processorProductIdTest: string | null;
  @Column({ type: 'text', nullable: true }) processorPriceIdLive: string | null;
  @Column({ type: 'text', nullable: true }) processorPriceIdTest: string | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
