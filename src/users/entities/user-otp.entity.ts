import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';

export type OtpPurpose = 'sign_in' | 'email_change';

/**
 * A one-time code sent to an address (docs/users.md): stored as an HMAC under a random salt,
 * expiring, with a bounded number of attempts, used once.
 */
@Check('user_otps_purpose_check', `(purpose = ANY (ARRAY['sign_in'::text, 'email_change'::text]))`)
@Entity('user_otps')
@Index('user_otps_site_id_email_purpose_id_idx', ['siteId', 'email', 'purpose', 'id'])
// Retention: codes expired for a day go, the longest expired first.
@Index('user_otps_expires_at_idx', ['expiresAt'])
export class UserOtpEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'text' }) email: string;
  @Column({ type: 'text' }) purpose: OtpPurpose;
  /** The user whose address changes (email_change); null for a sign-in. */
  @RefColumn({ nullable: true }) userId: number | null;
  @Column({ type: 'text' }) salt: string;
  @Column({ type: 'text' }) codeHash: string;
  @Column({ type: 'integer', default: 0 }) attempts: number;
  @Column({ type: 'timestamptz', precision: 3 }) expiresAt: Date;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) consumedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
