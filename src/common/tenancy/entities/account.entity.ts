import { Column, CreateDateColumn, Entity, UpdateDateColumn } from 'typeorm';
import { IdColumn } from '../../../database/columns';

export type AccountStatus = 'active' | 'deletion_scheduled';

@Entity('accounts')
export class AccountEntity {
  @IdColumn() id: number;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text', default: 'active' }) status: AccountStatus;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
