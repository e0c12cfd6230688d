import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { rm } from 'node:fs/promises';
import { DataSource, EntityManager, In } from 'typeorm';
import { NotFoundProblem, TooManyRequestsProblem, ValidationProblem } from '../../common/errors/problems';
import { parseFormFields } from '../../common/input/form-fields';
import { QueueService } from '../../common/queue/queue.service';
import { SiteContext } from '../../common/tenancy/site-context';
import { NewsletterConfig } from '../newsletter.config';
import { ImportFormDto } from '../dto/import.dto';
import { ImportChunkEntity } from '../entities/import-chunk.entity';
import { ImportEntity } from '../entities/import.entity';
import { ImportRepository } from './import.repository';
import { columnsError } from './import-rows';
import { StageChunk, stageCsv, stageJson } from './import-staging';
import { spoolImport, SpooledImport } from './import-upload';
import { ListsService } from '../audience/lists.service';

/** An account with its imports at NEWSLETTER_ACCOUNT_IMPORTS_MAX may try again this much later (s). */
const IMPORT_RETRY_AFTER = 10;

export const IMPORT_JOB = 'newsletter.import';
export const IMPORT_RECOVER_JOB = 'newsletter.import-recover';
/** An unfinished import whose counts stood still this long has lost its runner. */
const STALLED_SECONDS = 120;
/** Deadlocks and serialization failures: a batch that meets one is tried again (it changed nothing). */
const RETRYABLE = new Set(['40P01', '40001']);

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
    private readonly config: NewsletterConfig,
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
      const stage: StageChunk = (rows, chunkNo) => this.repository.stage(em, imp.id, chunkNo, rows);
      const chunkRows = this.config.NEWSLETTER_IMPORT_BATCH_ROWS;
      const report =
        format === 'json'
          ? await stageJson(upload, chunkRows, stage)
          : await stageCsv(upload, columns, chunkRows, stage);
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
    await this.repository.addCounts(em, imp.id, c);
    return c.rows;
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
