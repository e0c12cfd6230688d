import { ID, ID_LIST } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import {
  IMPORT_MODES,
  IMPORT_STATUSES,
  ImportEntity,
  type ImportMode,
  type ImportStatus,
} from '../entities/import.entity';
import { toBoolean } from '../../common/input/dto-rules';

/** The text fields of an import's multipart form (validated like a JSON body; `"true"` is true there). */
export class ImportFormDto {
  @IsOptional()
  @IsIn(IMPORT_MODES)
  mode?: ImportMode;

  /** Comma-separated list ids (checked by the service). */
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  listIds?: string;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  consent?: boolean;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  overwrite?: boolean;

  @IsOptional()
  @IsIn(['csv', 'json'])
  format?: 'csv' | 'json';

  /** JSON object: file header -> `email`, `name`, `attributes.<key>` or `-` (ignored). */
  @IsOptional()
  @IsString()
  @MaxLength(10_000)
  columns?: string;
}

/** The OpenAPI schema of the import form. */
export const IMPORT_FORM_SCHEMA = {
  type: 'object',
  required: ['file'],
  properties: {
    file: {
      type: 'string',
      format: 'binary',
      description:
        'CSV (UTF-8, with or without BOM; a header row) or JSON (an array of `{ email, name?, attributes? }`)',
      // The file's text, as a file with these columns would hold it (the `columns` example maps them).
      example: 'E-mail Address,Full name,Plan,Notes\ngrace@example.com,Grace Hopper,pro,met at a meetup\n',
    },
    mode: {
      type: 'string',
      enum: [...IMPORT_MODES],
      description: '`subscribe` (default): upsert and join `listIds`; `blocklist`: suppress the addresses',
    },
    listIds: { type: 'string', example: '1,2', description: 'Comma-separated list ids (subscribe mode)' },
    consent: {
      type: 'string',
      enum: ['true', 'false'],
      description: 'The people agreed to receive these lists: memberships are `active`. Default false: `pending`',
    },
    overwrite: {
      type: 'string',
      enum: ['true', 'false'],
      description: 'Known addresses take the file’s name and attributes. Default false: only what they lack',
    },
    format: { type: 'string', enum: ['csv', 'json'], description: 'Default: from the part’s type or file name' },
    columns: {
      type: 'string',
      example: '{"E-mail Address":"email","Full name":"name","Plan":"attributes.plan","Notes":"-"}',
      description:
        'JSON: CSV header -> `email`, `name`, `attributes.<key>` or `-` (ignored). Unmapped headers: `email`, ' +
        '`e-mail` and `email address` are the address, `name` the name, any other an attribute of its own name',
    },
  },
};

export class InvalidRowDto {
  @ApiProperty({ example: 7, description: 'The row in the file (a CSV header is row 1; JSON items count from 1)' })
  row: number;
  @ApiProperty({ example: 'email: must be an email address' }) reason: string;
}

export class ImportResponseDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ enum: IMPORT_STATUSES, example: 'completed' }) status: ImportStatus;
  @ApiProperty({ enum: IMPORT_MODES, example: 'subscribe' }) mode: ImportMode;
  @ApiProperty({ ...ID_LIST, example: [1] }) listIds: number[];
  @ApiProperty({ example: false }) consent: boolean;
  @ApiProperty({ example: false }) overwrite: boolean;
  @ApiProperty({ example: 1200, description: 'Data rows read from the file' }) rowsRead: number;
  @ApiProperty({ example: 1200, description: 'Valid rows upserted so far' }) rowsDone: number;
  @ApiProperty({ example: 1100 }) created: number;
  @ApiProperty({ example: 80 }) updated: number;
  @ApiProperty({
    example: 15,
    description: 'Valid rows left alone: repeated addresses, suppressed or complained ones, or lists they left',
  })
  skipped: number;
  @ApiProperty({ example: 5 }) invalidCount: number;
  @ApiProperty({ type: [InvalidRowDto], description: 'The first 1,000 invalid rows' }) invalid: InvalidRowDto[];
  @ApiProperty({ type: String, nullable: true, example: null }) error: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-24T10:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, nullable: true, example: '2026-11-24T10:00:05.000Z' }) finishedAt: string | null;
}

export function toImportResponse(i: ImportEntity): ImportResponseDto {
  return {
    id: i.id,
    status: i.status,
    mode: i.mode,
    listIds: i.listIds,
    consent: i.consent,
    overwrite: i.overwrite,
    rowsRead: i.rowsRead,
    rowsDone: i.rowsDone,
    created: i.created,
    updated: i.updated,
    skipped: i.skipped,
    invalidCount: i.invalidCount,
    invalid: i.invalid,
    error: i.error,
    createdAt: i.createdAt.toISOString(),
    finishedAt: i.finishedAt?.toISOString() ?? null,
  };
}
