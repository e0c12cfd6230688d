import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { AccountEntity } from '../../common/tenancy/entities/account.entity';
import { IdColumn, RefColumn } from '../../database/columns';

export const SENDER_DOMAIN_STATUSES = ['pending', 'verified'] as const;
export type SenderDomainStatus = (typeof SENDER_DOMAIN_STATUSES)[number];

/**
 * An account's claim on a domain its sites send From (docs/email.md, "Sender domains"). Each
 * claim has its own challenge and DKIM key: another account may claim the same domain, and is
 * verified only by publishing its own challenge.
 */
@Check('sender_domains_status_check', `(status = ANY (ARRAY['pending'::text, 'verified'::text]))`)
@Entity('sender_domains')
@Index('sender_domains_account_id_id_idx', ['accountId', 'id'])
@Index('sender_domains_account_id_domain_key', ['accountId', 'domain'], { unique: true })
export class SenderDomainEntity {
  @IdColumn() id: number;
  @RefColumn() accountId: number;
  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;
  /** Lower case, ASCII (punycode), no trailing dot. */
  @Column({ type: 'text' }) domain: string;
  @Column({ type: 'text', default: 'pending' }) status: SenderDomainStatus;
  /** The value of the challenge TXT record is `sitebase-verification=<token>`. */
  @Column({ type: 'text' }) challengeToken: string;
  @Column({ type: 'text' }) dkimSelector: string;
  /** base64 DER SubjectPublicKeyInfo, the `p=` of the DKIM record. */
  @Column({ type: 'text' }) dkimPublicKey: string;
  /** PEM (PKCS#8). Never read by the entity's default selects: only the signer's query reads it. */
  @Column({ type: 'text', select: false }) dkimPrivateKey: string;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) verifiedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
