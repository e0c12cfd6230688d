import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { AccountEntity } from '../../common/tenancy/entities/account.entity';
import { IdColumn, RefColumn } from '../../database/columns';
import { idArrayTransformer } from '../../database/id.transformer';

export type ApiKeyKind = 'secret' | 'publishable';

@Check('api_keys_kind_check', `(kind = ANY (ARRAY['secret'::text, 'publishable'::text]))`)
@Check(
  'api_keys_previous_check',
  `(((previous_key_hash IS NULL) = (previous_expires_at IS NULL)) AND ((previous_key_hash IS NULL) = (previous_prefix IS NULL)) AND ((previous_key_hash IS NULL) = (previous_last4 IS NULL)))`,
)
@Check('api_keys_rate_limit_check', `(rate_limit_per_minute > 0)`)
@Entity('api_keys')
@Index('api_keys_account_id_id_idx', ['accountId', 'id'])
export class ApiKeyEntity {
  @IdColumn() id: number;
  @RefColumn() accountId: number;
  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;
  @Column({ type: 'text' }) name: string;
  /** First characters of the key, shown so people can tell keys apart. */
  @Column({ type: 'text' }) prefix: string;
  @Column({ type: 'text' }) last4: string;
  /** SHA-256 of the plaintext, hex. The plaintext is never stored. */
  @Index('api_keys_key_hash_key', { unique: true }) @Column({ type: 'text' }) keyHash: string;
  /** null: every site of the account; otherwise only these. */
  @Column({ type: 'bigint', array: true, nullable: true, transformer: idArrayTransformer }) siteIds: number[] | null;
  /** null: every permission (common/auth/permissions.ts); otherwise only these. */
  @Column({ type: 'text', array: true, nullable: true }) permissions: string[] | null;
  /** `secret` (`sb_live_`) or `publishable` (`sb_pub_`, docs/foundation.md "Publishable keys"). */
  @Column({ type: 'text', default: 'secret' }) kind: ApiKeyKind;
  /** A publishable key's browser origins; null: any. */
  @Column({ type: 'text', array: true, nullable: true }) allowedOrigins: string[] | null;
  /** A publishable key's limit; null: the server's PUBLISHABLE_KEY_RATE_PER_MINUTE. */
  @Column({ type: 'integer', nullable: true }) rateLimitPerMinute: number | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) lastUsedAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) expiresAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) revokedAt: Date | null;
  /**
   * The secret a roll replaced (docs/foundation.md, "Rolling"): it keeps working until
   * `previousExpiresAt`; its hash, display parts and own last use. All null, or none.
   */
  @Index('api_keys_previous_key_hash_key', { unique: true, where: 'previous_key_hash IS NOT NULL' })
  @Column({ type: 'text', nullable: true })
  previousKeyHash: string | null;
  @Column({ type: 'text', nullable: true }) previousPrefix: string | null;
  @Column({ type: 'text', nullable: true }) previousLast4: string | null;
  @Column({ type: 'timestamptz', nullable: true }) previousExpiresAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) previousLastUsedAt: Date | null;
}
