import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';

export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];
/** `manual`: a PATCH; `failing`: it failed without a success for WEBHOOK_DISABLE_AFTER_SECONDS. */
export type DisabledReason = 'manual' | 'failing';

/** Where a site's events are delivered (docs/webhooks.md). */
@Check('webhook_endpoints_disabled_reason_check', `(disabled_reason = ANY (ARRAY['manual'::text, 'failing'::text]))`)
@Check('webhook_endpoints_status_check', `(status = ANY (ARRAY['enabled'::text, 'disabled'::text]))`)
@Entity('webhook_endpoints')
@Index('webhook_endpoints_site_id_id_idx', ['siteId', 'id'])
export class WebhookEndpointEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'text' }) url: string;
  @Column({ type: 'text', default: '' }) description: string;
  /** Event names, `<prefix>.*` patterns, or `*` for all. */
  @Column({ type: 'text', array: true }) eventTypes: string[];
  /** Extra request headers of the endpoint's own (docs/webhooks.md lists the names refused). */
  @Column({ type: 'jsonb', default: () => "'{}'" }) headers: Record<string, string>;
  @Column({ type: 'text', default: 'enabled' }) status: EndpointStatus;
  @Column({ type: 'text', nullable: true }) disabledReason: DisabledReason | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) disabledAt: Date | null;
  /** `whsec_…`, kept as is: signing needs it. Never in a response but the create's and the rotation's. */
  @Column({ type: 'text' }) secret: string;
  /** The secret before the last rotation, which signs too until previousSecretExpiresAt. */
  @Column({ type: 'text', nullable: true }) previousSecret: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) previousSecretExpiresAt: Date | null;
  /** Start of the current run of failures (null after a success). */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) failingSince: Date | null;
  /** Failed probes (drains stopped by failures) since the last success: how long it is left alone (the retry schedule). */
  @Column({ type: 'integer', default: 0 }) consecutiveFailures: number;
  /** While failing: no delivery is tried before this (one probe per step of the schedule, not one per event). */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) retryAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) lastSuccessAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) lastFailureAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
