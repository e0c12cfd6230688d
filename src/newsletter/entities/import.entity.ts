import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';
import { idArrayTransformer } from '../../database/id.transformer';

export const IMPORT_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
export const IMPORT_MODES = ['subscribe', 'blocklist'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];

/** One bad row of an import: its number in the file (the header is row 1 of a CSV) and why. */
export interface InvalidRow {
  row: number;
  reason: string;
}

/** An import of subscribers and its progress (the status resource of a queued import). */
@Entity('newsletter_imports')
@Index('newsletter_imports_site_id_id_idx', ['siteId', 'id'])
// The recovery sweep: imports that stopped moving (import.job.ts).
@Index('newsletter_imports_unfinished_idx', ['updatedAt'], { where: `"status" IN ('queued', 'running')` })
@Check('newsletter_imports_status_check', `"status" IN ('queued', 'running', 'completed', 'failed')`)
export class ImportEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'text' }) status: ImportStatus;
  @Column({ type: 'text' }) mode: ImportMode;
  @Column({ type: 'bigint', array: true, default: () => "'{}'", transformer: idArrayTransformer }) listIds: number[];
  @Column({ type: 'boolean' }) consent: boolean;
  @Column({ type: 'boolean' }) overwrite: boolean;
  @Column({ type: 'integer', default: 0 }) rowsRead: number;
  /** Rows staged (valid), and how many of them are done. */
  @Column({ type: 'integer', default: 0 }) rowsStaged: number;
  @Column({ type: 'integer', default: 0 }) rowsDone: number;
  @Column({ type: 'integer', default: 0 }) created: number;
  @Column({ type: 'integer', default: 0 }) updated: number;
  @Column({ type: 'integer', default: 0 }) skipped: number;
  @Column({ type: 'integer', default: 0 }) invalidCount: number;
  /** The first bad rows (at most IMPORT_INVALID_LISTED). */
  @Column({ type: 'jsonb', default: () => "'[]'" }) invalid: InvalidRow[];
  @Column({ type: 'text', nullable: true }) error: string | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) finishedAt: Date | null;
}
