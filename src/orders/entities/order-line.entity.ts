import { Check, Column, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import type { PricedLine } from '../../catalog/catalog.service';
import { IdColumn, RefColumn } from '../../database/columns';
import { idTransformer } from '../../database/id.transformer';
import { OrderEntity } from './order.entity';

type TaxBehavior = PricedLine['taxBehavior'];
type RecurringInterval = NonNullable<PricedLine['recurring']>['interval'];

/**
 * What an order sold, as the catalog had it then: a snapshot, so editing or deleting a product
 * never rewrites an order. `productId`/`variantId` are plain ids (the product may be gone).
 */
@Check(
  'order_lines_quantity_check',
  `((quantity >= 1) AND (fulfilled_quantity >= 0) AND (fulfilled_quantity <= quantity))`,
)
@Check(
  'order_lines_tax_behavior_check',
  `(tax_behavior = ANY (ARRAY['exclusive'::text, 'inclusive'::text, 'unspecified'::text]))`,
)
@Entity('order_lines')
@Index('order_lines_order_id_position_idx', ['orderId', 'position'])
export class OrderLineEntity {
  @IdColumn() id: number;
  @RefColumn() orderId: number;
  @ManyToOne(() => OrderEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'order_id' })
  order?: OrderEntity;
  /** Kept like the order's (no foreign key: the order outlives its site). */
  @RefColumn() siteId: number;
  /** The line's place in the order, from 0. */
  @Column({ type: 'integer' }) position: number;
  @RefColumn() productId: number;
  @RefColumn({ nullable: true }) variantId: number | null;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text', nullable: true }) sku: string | null;
  @Column({ type: 'bigint', transformer: idTransformer }) unitAmount: number;
  @Column({ type: 'integer' }) quantity: number;
  @Column({ type: 'text', nullable: true }) taxCode: string | null;
  @Column({ type: 'text' }) taxBehavior: TaxBehavior;
  /** Basis points applied (0 for `unspecified`). */
  @Column({ type: 'integer' }) taxRate: number;
  @Column({ type: 'bigint', transformer: idTransformer }) subtotalAmount: number;
  @Column({ type: 'bigint', transformer: idTransformer }) taxAmount: number;
  @Column({ type: 'bigint', transformer: idTransformer }) totalAmount: number;
  @Column({ type: 'text', nullable: true }) recurringInterval: RecurringInterval | null;
  @Column({ type: 'integer', nullable: true }) recurringIntervalCount: number | null;
  /** Units shipped (or fulfilled without a shipment) so far. */
  @Column({ type: 'integer', default: 0 }) fulfilledQuantity: number;
}
