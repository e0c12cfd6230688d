import { Column, ColumnOptions, PrimaryColumn } from 'typeorm';
import { idTransformer } from './id.transformer';

/** bigint identity primary key, read back as a number. */
export const IdColumn = () =>
  PrimaryColumn({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS', transformer: idTransformer });

/** A bigint reference to another row (site_id, account_id, ...), read back as a number. */
export const RefColumn = (options: ColumnOptions = {}) =>
  Column({ type: 'bigint', transformer: idTransformer, ...options });
