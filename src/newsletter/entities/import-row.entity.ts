import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { idTransformer } from '../../database/id.transformer';
import { ImportEntity } from './import.entity';

/** A valid row of an import, staged until the import's batches upsert it (then deleted). */
@Entity('newsletter_import_rows')
export class ImportRowEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) importId: number;
  @ManyToOne(() => ImportEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'import_id' })
  import?: ImportEntity;
  /** Its number in the file. */
  @PrimaryColumn({ type: 'integer' }) rowNo: number;
  @Column({ type: 'text' }) email: string;
  @Column({ type: 'text' }) emailHash: string;
  @Column({ type: 'text', nullable: true }) name: string | null;
  @Column({ type: 'jsonb', nullable: true }) attributes: Record<string, unknown> | null;
}
