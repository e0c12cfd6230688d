import { Injectable } from '@nestjs/common';
import { parse } from 'csv-parse';
import type { Request } from 'express';
import { createReadStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { DataSource, EntityManager, In } from 'typeorm';
import {
  BadRequestProblem,
  NotFoundProblem,
  PayloadTooLargeProblem,
  TooManyRequestsProblem,
  ValidationProblem,
} from '../../common/errors/problems';
import { parseFormFields } from '../../common/input/form-fields';
import { QueueService } from '../../common/queue/queue.service';
import { SiteContext } from '../../common/tenancy/site-context';
import { AppConfig } from '../../config/app-config';
import { ImportFormDto } from '../dto/import.dto';
import { ImportChunkEntity } from '../entities/import-chunk.entity';
import { ImportEntity, InvalidRow } from '../entities/import.entity';
import { ImportRepository, StagedRow } from './import.repository';
import { ColumnTarget, columnsError, csvRow, jsonRow, mapHeader } from './import-rows';
import { spoolImport, SpooledImport } from './import-upload';
import { ListsService } from '../audience/lists.service';

/** An account with its imports at NEWSLETTER_ACCOUNT_IMPORTS_MAX may try again this much later (s). */
const IMPORT_RETRY_AFTER = 10;

export const IMPORT_JOB = 'newsletter.import';
export const IMPORT_RECOVER_JOB = 'newsletter.import-recover';
/** An unfinished import whose counts stood still this long has lost its runner. */
const STALLED_SECONDS = 120;
/** The bad rows an import keeps for its report; the count goes on. */
export const IMPORT_INVALID_LISTED = 1000;
/** JSON imports are parsed whole; CSV streams. */
const JSON_MAX_BYTES = 32 * 1024 * 1024;
/** Deadlocks and serialization failures: a batch that meets one is tried again (it changed nothing). */
const RETRYABLE = new Set(['40P01', '40001']);

const invalidFile = (detail: string) => new BadRequestProblem('invalid_file', detail);

/** What an import answers: the import, and whether it was queued (202) or done (200). */
export interface ImportStart {
  import: ImportEntity;
  queued: boolean;
}

/**
 * Imports (docs/newsletter.md, "Import"): the upload is spooled to disk, parsed as a stream
 * (csv-parse) and staged as chunks of NEWSLETTER_IMPORT_BATCH_ROWS (one insert each), in one
 * transaction with the import's record. Up to NEWSLETTER_IMPORT_SYNC_ROWS valid rows are
 * upserted in that transaction and answered at once; more are left to the `newsletter.import`
 * job, which upserts a chunk per statement and transaction, so a million rows never hold a
 * request open.
 */
@Injectable()
export class ImportService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: ImportRepository,
    private readonly lists: ListsService,
    private readonly queue: QueueService,
    private readonly config: AppConfig,
  ) {}

  async start(site: SiteContext, req: Request): Promise<ImportStart> {
    // Fair share of the import job (one queue for every account): an account has at most
    // NEWSLETTER_ACCOUNT_IMPORTS_MAX imports waiting or running; checked before the upload is read.
    const max = this.config.NEWSLETTER_ACCOUNT_IMPORTS_MAX;
    if (max > 0 && (await this.repository.unfinishedOfAccount(this.dataSource.manager, site.accountId, max)) >= max)
      throw new TooManyRequestsProblem(IMPORT_RETRY_AFTER);
    const upload = await spoolImport(req, this.config.NEWSLETTER_IMPORT_MAX_BYTES);
    try {
      const started = await this.stageAndRun(site, upload);
      // Committed: this instance's import loop starts on it now, not at its next poll.
      if (started.queued) this.queue.wake(IMPORT_JOB);
      return started;
    } finally {
      await rm(upload.path, { force: true });
    }
  }

  async get(site: SiteContext, id: number): Promise<ImportEntity> {
    const found = await this.dataSource.manager.findOneBy(ImportEntity, { id, siteId: site.id });
    if (!found) throw new NotFoundProblem('Import');
    return found;
  }

  private async stageAndRun(site: SiteContext, upload: SpooledImport): Promise<ImportStart> {
    const form = parseFormFields(ImportFormDto, upload.fields);
    const mode = form.mode ?? 'subscribe';
    const listIds = parseListIds(form.listIds);
    if (mode === 'subscribe' && listIds.length === 0)
      throw new ValidationProblem([{ path: 'listIds', message: 'is required in subscribe mode' }]);
    let columns: Record<string, string> = {};
    if (form.columns !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(form.columns);
      } catch {
        parsed = undefined;
      }
      const error = columnsError(parsed);
      if (error) throw new ValidationProblem([{ path: 'columns', message: error }]);
      columns = parsed as Record<string, string>;
    }
    const format = form.format ?? (/json/i.test(upload.mimeType) || /\.json$/i.test(upload.fileName) ? 'json' : 'csv');
    return this.dataSource.transaction(async (em) => {
      if (mode === 'subscribe') await this.lists.requireMany(em, site, listIds);
      let imp = await em.save(
        em.create(ImportEntity, {
          siteId: site.id,
          status: 'queued',
          mode,
          listIds: mode === 'subscribe' ? listIds : [],
          consent: form.consent === true,
          overwrite: form.overwrite === true,
          invalid: [],
          error: null,
          finishedAt: null,
        }),
      );
      const report =
        format === 'json' ? await this.stageJson(em, imp, upload) : await this.stageCsv(em, imp, upload, columns);
      imp.rowsRead = report.read;
      imp.rowsStaged = report.staged;
      imp.invalidCount = report.invalidCount;
      imp.invalid = report.invalid;
      if (report.staged > this.config.NEWSLETTER_IMPORT_SYNC_ROWS) {
        imp = await em.save(imp);
        await this.queue.send(IMPORT_JOB, { importId: imp.id }, { em });
        return { import: imp, queued: true };
      }
      imp.status = 'running';
      imp = await em.save(imp);
      await this.processAll(em, imp);
      return { import: await em.findOneByOrFail(ImportEntity, { id: imp.id }), queued: false };
    });
  }

  /**
   * The queued part: NEWSLETTER_IMPORT_WORKERS loops each take the next chunk and upsert it in
   * a transaction of its own, side by side (the database does the work, so two loops use two
   * cores); running it again resumes with the chunks left.
   */
  async run(importId: number): Promise<void> {
    const imp = await this.dataSource.manager.findOneBy(ImportEntity, { id: importId });
    if (!imp || imp.status === 'completed' || imp.status === 'failed') return;
    await this.dataSource.manager.update(ImportEntity, { id: imp.id }, { status: 'running' });
    const loop = async () => {
      while ((await this.batchWithRetry(imp)) > 0);
    };
    const outcomes = await Promise.allSettled(Array.from({ length: this.config.NEWSLETTER_IMPORT_WORKERS }, loop));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
    await this.repository.complete(this.dataSource.manager, imp.id);
  }

  /**
   * Every minute (IMPORT_RECOVER_JOB): an import queued or running whose counts have not moved
   * for two minutes lost its runner (a killed instance; a running batch commits every second or
   * so): it is queued again. Its job would otherwise wait out its expiry (an hour). A second
   * runner beside a slow first one is harmless: they take different chunks (SKIP LOCKED).
   * Answers the imports it queued.
   */
  async recover(): Promise<number[]> {
    const ids = await this.repository.takeStalled(this.dataSource.manager, STALLED_SECONDS, 100);
    for (const importId of ids) await this.queue.send(IMPORT_JOB, { importId });
    if (ids.length > 0) this.queue.wake(IMPORT_JOB);
    return ids;
  }

  /** The job gave up on an import (its last retry failed): it says so, and its staged rows go. */
  async fail(importId: number): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      await em.update(
        ImportEntity,
        { id: importId, status: In(['queued', 'running']) },
        {
          status: 'failed',
          error: 'The import stopped on an internal error; the rows counted as done are in',
          finishedAt: new Date(),
        },
      );
      await em.delete(ImportChunkEntity, { importId });
    });
  }

  private async batchWithRetry(imp: ImportEntity): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction(async (em) => {
          // A batch's commit need not wait for the disk: if the database loses it in a crash,
          // the chunk it deleted comes back with it, and the job upserts it again.
          await this.repository.commitWithoutWaitingForDisk(em);
          return this.batch(em, imp);
        });
      } catch (err) {
        const code = (err as { driverError?: { code?: string }; code?: string }).driverError?.code;
        if (attempt >= 5 || !code || !RETRYABLE.has(code)) throw err;
      }
    }
  }

  private async processAll(em: EntityManager, imp: ImportEntity): Promise<void> {
    while ((await this.batch(em, imp)) > 0);
    await em.update(ImportEntity, { id: imp.id }, { status: 'completed', finishedAt: new Date() });
  }

  /** One chunk upserted and counted; answers how many staged rows it took (0: none left). */
  private async batch(em: EntityManager, imp: ImportEntity): Promise<number> {
    const c =
      imp.mode === 'blocklist'
        ? await this.repository.blocklistBatch(em, imp)
        : await this.repository.subscribeBatch(em, imp);
    if (c.rows === 0) return 0;
    await em
      .createQueryBuilder()
      .update(ImportEntity)
      .set({
        rowsDone: () => `rows_done + ${c.rows}`,
        created: () => `created + ${c.created}`,
        updated: () => `updated + ${c.updated}`,
        skipped: () => `skipped + ${Math.max(0, c.rows - c.created - c.updated)}`,
      })
      .where('id = :id', { id: imp.id })
      .execute();
    return c.rows;
  }

  private async stageCsv(
    em: EntityManager,
    imp: ImportEntity,
    upload: SpooledImport,
    columns: Record<string, string>,
  ): Promise<StageReport> {
    const report = new StageReport();
    const parser = createReadStream(upload.path).pipe(
      parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 64 * 1024 }),
    );
    let targets: ColumnTarget[] | undefined;
    let rowNo = 0;
    const chunkRows = this.config.NEWSLETTER_IMPORT_BATCH_ROWS;
    let pending: StagedRow[] = [];
    const stager = new Stager((rows, chunkNo) => this.repository.stage(em, imp.id, chunkNo, rows));
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

  private async stageJson(em: EntityManager, imp: ImportEntity, upload: SpooledImport): Promise<StageReport> {
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
    const chunkRows = this.config.NEWSLETTER_IMPORT_BATCH_ROWS;
    for (let i = 0; i < rows.length; i += chunkRows)
      await this.repository.stage(em, imp.id, i / chunkRows + 1, rows.slice(i, i + chunkRows));
    report.staged = rows.length;
    return report;
  }
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

class StageReport {
  read = 0;
  staged = 0;
  invalidCount = 0;
  invalid: InvalidRow[] = [];

  refuse(row: number, reason: string): void {
    this.invalidCount += 1;
    if (this.invalid.length < IMPORT_INVALID_LISTED) this.invalid.push({ row, reason });
  }
}

/** `"1, 2"` -> [1, 2]; anything else is a 400 on `listIds`. */
function parseListIds(text: string | undefined): number[] {
  if (text === undefined || text.trim() === '') return [];
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length > 100 || parts.some((p) => !/^[1-9][0-9]{0,15}$/.test(p) || !Number.isSafeInteger(Number(p))))
    throw new ValidationProblem([{ path: 'listIds', message: 'must be comma-separated list ids (at most 100)' }]);
  return [...new Set(parts.map(Number))];
}
