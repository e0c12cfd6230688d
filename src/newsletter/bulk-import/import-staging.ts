import { parse } from 'csv-parse';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { BadRequestProblem, PayloadTooLargeProblem } from '../../common/errors/problems';
import { InvalidRow } from '../entities/import.entity';
import { StagedRow } from './import.repository';
import { ColumnTarget, csvRow, jsonRow, mapHeader } from './import-rows';
import { SpooledImport } from './import-upload';

/*
 * An import's upload read into staged chunks (docs/newsletter.md, "Import"): rows parsed and
 * checked, the bad ones counted and the first IMPORT_INVALID_LISTED kept for the report, the
 * good ones written a chunk at a time (`stage`, one insert each, in the import's transaction).
 */

/** The bad rows an import keeps for its report; the count goes on. */
export const IMPORT_INVALID_LISTED = 1000;
/** JSON imports are parsed whole; CSV streams. */
const JSON_MAX_BYTES = 32 * 1024 * 1024;

/** Writes one chunk of rows (numbered from 1). */
export type StageChunk = (rows: StagedRow[], chunkNo: number) => Promise<void>;

const invalidFile = (detail: string) => new BadRequestProblem('invalid_file', detail);

/**
 * Reads a CSV upload as a stream: the header row maps the columns, each later row is staged or
 * refused; chunks of `chunkRows` are written one behind the parser.
 */
export async function stageCsv(
  upload: SpooledImport,
  columns: Record<string, string>,
  chunkRows: number,
  stage: StageChunk,
): Promise<StageReport> {
  const report = new StageReport();
  const parser = createReadStream(upload.path).pipe(
    parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 64 * 1024 }),
  );
  let targets: ColumnTarget[] | undefined;
  let rowNo = 0;
  let pending: StagedRow[] = [];
  const stager = new Stager(stage);
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      rowNo += 1;
      if (!targets) {
        const mapped = mapHeader(record, columns);
        if ('error' in mapped) throw invalidFile(`The header row: ${mapped.error}`);
        targets = mapped.targets;
        continue;
      }
      report.read += 1;
      const row = csvRow(rowNo, record, targets);
      if ('reason' in row) report.refuse(rowNo, row.reason);
      else pending.push(row);
      if (pending.length >= chunkRows) {
        // The insert runs while the next rows are parsed; one at a time on the transaction.
        await stager.add(pending);
        report.staged += pending.length;
        pending = [];
      }
    }
  } catch (err) {
    await stager.drain().catch(() => undefined);
    const csv = err as { code?: string; lines?: number; message?: string };
    if (typeof csv.code === 'string' && csv.code.startsWith('CSV_'))
      throw invalidFile(`The CSV cannot be read at line ${csv.lines ?? '?'}: ${csv.message ?? csv.code}`);
    throw err;
  }
  if (!targets) throw invalidFile('The CSV has no header row');
  await stager.add(pending);
  await stager.drain();
  report.staged += pending.length;
  return report;
}

/** Reads a JSON upload whole (an array of { email, name?, attributes? }) and stages its rows by chunks. */
export async function stageJson(upload: SpooledImport, chunkRows: number, stage: StageChunk): Promise<StageReport> {
  if (upload.size > JSON_MAX_BYTES)
    throw new PayloadTooLargeProblem(`A JSON import may be at most ${JSON_MAX_BYTES} bytes; send CSV for more`);
  let items: unknown;
  try {
    items = JSON.parse((await readFile(upload.path, 'utf8')).replace(/^\uFEFF/, ''));
  } catch {
    throw invalidFile('The file is not valid JSON');
  }
  if (!Array.isArray(items)) throw invalidFile('A JSON import is an array of { email, name?, attributes? }');
  const report = new StageReport();
  const rows: StagedRow[] = [];
  items.forEach((item, i) => {
    report.read += 1;
    const row = jsonRow(i + 1, item);
    if ('reason' in row) report.refuse(i + 1, row.reason);
    else rows.push(row);
  });
  for (let i = 0; i < rows.length; i += chunkRows) await stage(rows.slice(i, i + chunkRows), i / chunkRows + 1);
  report.staged = rows.length;
  return report;
}

/** Staging inserts one chunk behind the parser: the next is parsed while the last one is written. */
class Stager {
  private inflight: Promise<void> = Promise.resolve();
  private failed: Error | null = null;
  private chunks = 0;

  constructor(private readonly write: (rows: StagedRow[], chunkNo: number) => Promise<void>) {}

  async add(rows: StagedRow[]): Promise<void> {
    await this.drain();
    if (rows.length === 0) return;
    this.chunks += 1;
    this.inflight = this.write(rows, this.chunks).catch((err: unknown) => {
      this.failed = err instanceof Error ? err : new Error(String(err));
    });
  }

  async drain(): Promise<void> {
    await this.inflight;
    if (this.failed) throw this.failed;
  }
}

export class StageReport {
  read = 0;
  staged = 0;
  invalidCount = 0;
  invalid: InvalidRow[] = [];

  refuse(row: number, reason: string): void {
    this.invalidCount += 1;
    if (this.invalid.length < IMPORT_INVALID_LISTED) this.invalid.push({ row, reason });
  }
}
