import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { QueueService } from '../common/queue/queue.service';
import { MediaRepository } from './media.repository';
import { MediaStorage } from './storage/media-storage';

export const MEDIA_REMOVE_FILES_JOB = 'media.remove-files';
const KEYS_PER_JOB = 500;

/** The job's payload: storage keys (ids, never file contents). */
export interface RemoveFilesJob {
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
    private readonly queue: QueueService,
    private readonly storage: MediaStorage,
    private readonly repository: MediaRepository,
  ) {}

  onModuleInit(): void {
    this.queue.register<RemoveFilesJob>(MEDIA_REMOVE_FILES_JOB, ({ keys }) => this.removeUnheld(keys));
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
    const keep = await this.repository.heldKeys(keys);
    await this.storage.delete(keys.filter((k) => !keep.has(k)));
  }
}
