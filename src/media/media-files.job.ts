import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AccountDataRegistry } from '../common/deletion/account-data.registry';
import { QueueService } from '../common/queue/queue.service';
import { sql } from '../database/sql';
import { MediaStorage } from './storage/media-storage';

export const MEDIA_REMOVE_FILES_JOB = 'media.remove-files';
const KEYS_PER_JOB = 500;

interface RemoveFilesJob {
  keys: string[];
}

/**
 * Removing stored files follows the rows: the job is enqueued in the transaction that deletes
 * them, so a committed delete always loses its files and a rolled-back one never does. The
 * job removes only keys no row holds, so running it twice (or late) is harmless.
 */
@Injectable()
export class MediaFilesJob implements OnModuleInit {
  private readonly logger = new Logger('MediaFiles');

  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: QueueService,
    private readonly storage: MediaStorage,
    private readonly registry: AccountDataRegistry,
  ) {}

  onModuleInit(): void {
    this.queue.register<RemoveFilesJob>(MEDIA_REMOVE_FILES_JOB, ({ keys }) => this.removeUnheld(keys));
    // Before sites (900), whose delete would cascade to the rows and forget the files.
    this.registry.register({
      name: 'media',
      order: 300,
      preview: async (em, accountId) => {
        const [row]: Array<{ items: number; files: number; categories: number; tags: number }> = await em.query(
          `SELECT (SELECT count(*)::int FROM media_items m JOIN sites s ON s.id = m.site_id WHERE s.account_id = $1 AND m.original_id IS NULL) AS items,
                  (SELECT count(*)::int FROM media_items m JOIN sites s ON s.id = m.site_id WHERE s.account_id = $1) AS files,
                  (SELECT count(*)::int FROM media_categories c JOIN sites s ON s.id = c.site_id WHERE s.account_id = $1) AS categories,
                  (SELECT count(*)::int FROM media_tags t JOIN sites s ON s.id = t.site_id WHERE s.account_id = $1) AS tags`,
          [accountId],
        );
        return [
          { resource: 'media_items', count: row.items, action: 'delete' },
          { resource: 'media_files', count: row.files, action: 'delete' },
          { resource: 'media_categories', count: row.categories, action: 'delete' },
          { resource: 'media_tags', count: row.tags, action: 'delete' },
        ];
      },
      purge: (em, accountId) => this.purgeAccount(em, accountId),
    });
  }

  /** Enqueues the removal of these files in the caller's transaction. */
  async enqueue(em: EntityManager, keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += KEYS_PER_JOB) {
      await this.queue.send(MEDIA_REMOVE_FILES_JOB, { keys: keys.slice(i, i + KEYS_PER_JOB) }, { em });
    }
  }

  /** After commit: removes the files at once; when that fails the queued job still will. */
  async removeSoon(keys: string[]): Promise<void> {
    try {
      await this.removeUnheld(keys);
    } catch (err) {
      this.logger.warn({ err, count: keys.length }, 'Could not remove media files now; the queued job will retry');
    }
  }

  async removeUnheld(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    const held: Array<{ storage_key: string }> = await this.dataSource.query(
      'SELECT storage_key FROM media_items WHERE storage_key = ANY($1)',
      [keys],
    );
    const keep = new Set(held.map((r) => r.storage_key));
    await this.storage.delete(keys.filter((k) => !keep.has(k)));
  }

  private async purgeAccount(em: EntityManager, accountId: number): Promise<Record<string, number>> {
    const sites = '(SELECT id FROM sites WHERE account_id = $1)';
    const { rows } = await sql<{ storage_key: string }>(
      em,
      `SELECT storage_key FROM media_items WHERE site_id IN ${sites}`,
      [accountId],
    );
    const items = (await sql(em, `DELETE FROM media_items WHERE site_id IN ${sites}`, [accountId])).rowCount;
    const categories = (await sql(em, `DELETE FROM media_categories WHERE site_id IN ${sites}`, [accountId])).rowCount;
    const tags = (await sql(em, `DELETE FROM media_tags WHERE site_id IN ${sites}`, [accountId])).rowCount;
    await this.enqueue(
      em,
      rows.map((r) => r.storage_key),
    );
    return { media_files: items, media_categories: categories, media_tags: tags };
  }
}
