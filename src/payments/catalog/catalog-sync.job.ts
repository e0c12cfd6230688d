import { Injectable, OnModuleInit } from '@nestjs/common';
import { QueueService } from '../../common/queue/queue.service';
import {
  CATALOG_RETIRE_JOB,
  CATALOG_SITE_SYNC_JOB,
  CATALOG_SYNC_JOB,
  CATALOG_SYNC_RETRIES,
  CatalogRetireJobData,
  CatalogSiteSyncJobData,
  CatalogSyncJobData,
  CatalogSyncService,
} from './catalog-sync.service';

/**
 * The catalog sync's jobs (docs/payments.md, "Catalog sync"), each safe to run twice: a product's
 * sync (`stately` per product: one runs, one more may wait), a site's sweep (every product, a page
 * at a time), and the deactivation of a deleted product's or variant's Stripe objects.
 */
@Injectable()
export class CatalogSyncJob implements OnModuleInit {
  constructor(
    private readonly queue: QueueService,
    private readonly sync: CatalogSyncService,
  ) {}

  onModuleInit(): void {
    this.queue.register<CatalogSyncJobData>(CATALOG_SYNC_JOB, (data, job) => this.sync.sync(data, job.retryCount), {
      policy: 'stately',
      retryLimit: CATALOG_SYNC_RETRIES,
      retryDelaySeconds: 5,
      retryBackoff: true,
    });
    this.queue.register<CatalogSiteSyncJobData>(CATALOG_SITE_SYNC_JOB, (data) => this.sync.syncSite(data), {
      policy: 'stately',
      retryLimit: 5,
    });
    this.queue.register<CatalogRetireJobData>(CATALOG_RETIRE_JOB, (data) => this.sync.retire(data), {
      retryLimit: 8,
    });
  }
}
