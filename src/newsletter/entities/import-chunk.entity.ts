import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { idTransformer } from '../../database/id.transformer';
import { ImportEntity } from './import.entity';

/**
 * A batch of an import's valid rows, staged until the import upserts it (then deleted): one row
 * per batch, its columns as arrays of the same length.
 */
@Entity('newsletter_import_chunks')
export class ImportChunkEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) importId: number;
  @ManyToOne(() => ImportEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'import_id' })
  import?: ImportEntity;
  /** Its place among the import's chunks, from 1. */
  @PrimaryColumn({ type: 'integer' }) chunkNo: number;
  /** The rows' numbers in the file. */
  @Column({ type: 'integer', array: true }) rowNos: number[];
  @Column({ type: 'text', array: true }) emails: string[];
  /** '' for none. */
  @Column({ type: 'text', array: true }) names: string[];
  /** `{}` for none. */
  @Column({ type: 'jsonb', array: true }) attributes: Array<Record<string, unknown>>;
}
