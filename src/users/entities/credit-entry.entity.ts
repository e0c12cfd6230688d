import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';
import { SiteUserEntity } from './site-user.entity';

export const CREDIT_KINDS = ['grant', 'spend', 'expire', 'refund'] as const;
export type CreditKind = (typeof CREDIT_KINDS)[number];

/**
 * One line of a user's credit ledger (docs/users.md): append-only. `amount` is signed (grants
 * and refunds add, spends and expiries take away). Grants and refunds also keep `remaining`,
 * what of them is still unspent: a spend takes from the soonest-expiring first, and an expired
 * grant's remainder stops counting at its expiry (the expiry line is written later, for the record).
 */
@Check(
  'user_credit_entries_kind_check',
  `(kind = ANY (ARRAY['grant'::text, 'spend'::text, 'expire'::text, 'refund'::text]))`,
)
@Check('user_credit_entries_remaining_check', `((remaining >= 0) AND (remaining <= GREATEST(amount, 0)))`)
@Check(
  'user_credit_entries_sign_check',
  `(((kind = ANY (ARRAY['grant'::text, 'refund'::text])) AND (amount > 0)) OR ((kind = ANY (ARRAY['spend'::text, 'expire'::text])) AND (amount < 0)))`,
)
@Entity('user_credit_entries')
@Index('user_credit_entries_user_id_id_idx', ['userId', 'id'])
@Index('user_credit_entries_open_idx', ['userId', 'expiresAt'], { where: 'remaining > 0' })
export class CreditEntryEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @RefColumn() userId: number;
  @ManyToOne(() => SiteUserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: SiteUserEntity;
  @Column({ type: 'text' }) kind: CreditKind;
  @Column({ type: 'integer' }) amount: number;
  /** Grants and refunds: what is left of them; 0 for the other kinds. */
  @Column({ type: 'integer', default: 0 }) remaining: number;
  @Column({ type: 'text', default: '' }) reason: string;
  /** The caller's reference (an order, a charge), for reconciliation. */
  @Column({ type: 'text', nullable: true }) reference: string | null;
  /** Grants: when what is left of them stops counting; null: never. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) expiresAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
