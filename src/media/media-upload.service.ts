import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { MediaConfig } from './media.config';
import { UnsupportedMediaTypeProblem, ValidationProblem } from '../common/errors/problems';
import { recordEvent } from '../common/outbox/record-event';
import { SiteContext } from '../common/tenancy/site-context';
import { MediaItemEntity } from './entities/media-item.entity';
import { defaultTitle, newStorageKey, safeFileName, thumbnailKey } from './media-keys';
import { MediaDetail } from './media-view';
import { MEDIA_EVENTS } from './media.events';
import { MediaService } from './media.service';
import { MediaStorage, ObjectMeta } from './storage/media-storage';
import {
  ImageInfo,
  probeImage,
  probeSvg,
  renderThumbnail,
  RenderedThumbnail,
  Semaphore,
  thumbnailWidths,
} from './upload/images';
import { AcceptedType, detectType } from './upload/media-types';
import { MultipartForm, readMultipart, removeSpooled, SpooledFile } from './upload/multipart';

const SPOOL_MAX_AGE_MS = 6 * 3600 * 1000;

/** Text a client may send along with a file (already validated by the route's parser). */
export interface MediaTextInput {
  title?: string;
  caption?: string;
  description?: string;
  altText?: string;
}

export interface UploadOptions {
  /** Form fields that carry files; the first is named in "is required" errors. */
  fileFields: string[];
  maxFiles: number;
  /** Validates the text fields of the form (400 on anything wrong). */
  parseFields: (fields: Record<string, string>) => MediaTextInput;
}

interface PreparedFile {
  spooled: SpooledFile;
  type: AcceptedType;
  fileName: string;
  image: ImageInfo | null;
}

interface StoredFile extends PreparedFile {
  key: string;
  thumbnails: Array<RenderedThumbnail & { key: string }>;
}

/**
 * Uploads (docs/media.md): multipart streamed to spool files, type detected from the bytes,
 * images probed before decoding, thumbnails rendered, files stored, then the rows and the
 * `media.created` event written in one transaction. A failure after storing removes the files.
 */
@Injectable()
export class MediaUploadService implements OnModuleInit {
  private readonly logger = new Logger('MediaUpload');
  private readonly decoding: Semaphore;
  private readonly tmpDir: string;

  constructor(
    private readonly config: MediaConfig,
    private readonly storage: MediaStorage,
    private readonly dataSource: DataSource,
    private readonly media: MediaService,
  ) {
    this.decoding = new Semaphore(config.MEDIA_PROCESSING_CONCURRENCY);
    this.tmpDir = config.MEDIA_TMP_DIR || join(config.MEDIA_LOCAL_DIR, '.tmp');
  }

  async onModuleInit(): Promise<void> {
    await mkdir(this.tmpDir, { recursive: true });
    await this.sweepSpool();
  }

  /**
   * Spool files normally go when their request ends; a crash can leave some. Old ones are
   * removed at start (old enough that no instance sharing the folder is still writing them).
   */
  private async sweepSpool(): Promise<void> {
    const cutoff = Date.now() - SPOOL_MAX_AGE_MS;
    for (const name of await readdir(this.tmpDir)) {
      const path = join(this.tmpDir, name);
      const info = await stat(path).catch(() => null);
      if (info?.isFile() && info.mtimeMs < cutoff) await rm(path, { force: true });
    }
  }

  /** Stores every file of the form (all or none) and returns the new originals. */
  async upload(site: SiteContext, req: IncomingMessage, options: UploadOptions): Promise<MediaDetail[]> {
    const form = await readMultipart(req, {
      tmpDir: this.tmpDir,
      maxBytes: this.config.MEDIA_MAX_BYTES,
      maxFiles: options.maxFiles,
      fileFields: options.fileFields,
    });
    let text: MediaTextInput;
    try {
      text = options.parseFields(form.fields);
      if (form.files.length === 0)
        throw new ValidationProblem([{ path: options.fileFields[0], message: 'is required' }]);
    } catch (err) {
      await removeSpooled(form.files);
      throw err;
    }
    return this.storeAll(site, form, text);
  }

  /**
   * Stores one file given as bytes (the demo data of a first start), checked and thumbnailed as an
   * upload is.
   */
  async uploadBytes(
    site: SiteContext,
    file: { name: string; bytes: Buffer },
    text: MediaTextInput,
  ): Promise<MediaDetail[]> {
    await mkdir(this.tmpDir, { recursive: true });
    const path = join(this.tmpDir, `${randomUUID()}.upload`);
    await writeFile(path, file.bytes);
    const form: MultipartForm = {
      files: [{ field: 'file', clientName: file.name, path, size: file.bytes.length }],
      fields: {},
    };
    return this.storeAll(site, form, text);
  }

  /** Checks and stores every spooled file of a form (all or none); the spooled files are removed. */
  private async storeAll(site: SiteContext, form: MultipartForm, text: MediaTextInput): Promise<MediaDetail[]> {
    const stored: StoredFile[] = [];
    let ids: number[];
    try {
      const prepared: PreparedFile[] = [];
      for (const file of form.files) prepared.push(await this.prepare(file));
      for (const file of prepared) await this.store(site, file, stored);
      ids = await this.dataSource.transaction(async (em) => {
        const out: number[] = [];
        for (const file of stored) {
          const original = await em.save(
            em.create(MediaItemEntity, {
              siteId: site.id,
              originalId: null,
              storageKey: file.key,
              fileName: file.fileName,
              contentType: file.type.contentType,
              filesize: file.spooled.size,
              width: file.image?.width ?? null,
              height: file.image?.height ?? null,
              title: text.title ?? defaultTitle(file.fileName),
              caption: text.caption ?? '',
              description: text.description ?? '',
              altText: text.altText ?? '',
            }),
          );
          const thumbnailIds: number[] = [];
          for (const t of file.thumbnails) {
            const row = await em.save(
              em.create(MediaItemEntity, {
                siteId: site.id,
                originalId: original.id,
                storageKey: t.key,
                fileName: variantName(file.fileName, t.width, t.ext),
                contentType: t.contentType,
                filesize: t.data.length,
                width: t.width,
                height: t.height,
                title: original.title,
                caption: original.caption,
                description: original.description,
                altText: original.altText,
              }),
            );
            thumbnailIds.push(row.id);
          }
          await recordEvent(em, site, MEDIA_EVENTS.created, {
            id: original.id,
            fileName: original.fileName,
            contentType: original.contentType,
            filesize: original.filesize,
            thumbnailIds,
          });
          out.push(original.id);
        }
        return out;
      });
    } catch (err) {
      const keys = stored.flatMap((f) => [f.key, ...f.thumbnails.map((t) => t.key)]);
      if (keys.length)
        await this.storage
          .delete(keys)
          .catch((e: unknown) => this.logger.warn({ err: e, keys }, 'Could not remove files of a failed upload'));
      throw err;
    } finally {
      await removeSpooled(form.files);
    }
    return this.media.detailsByIds(site, ids);
  }

  /** Checks one file before anything is stored: not empty, an accepted type, a sane image. */
  private async prepare(spooled: SpooledFile): Promise<PreparedFile> {
    if (spooled.size === 0) throw new ValidationProblem([{ path: spooled.field, message: 'must not be empty' }]);
    const type = await detectType(spooled.path, spooled.clientName);
    if (!type) {
      throw new UnsupportedMediaTypeProblem(
        'This file type is not accepted: images, PDF, audio, video and office documents are (docs/media.md)',
      );
    }
    const image =
      type.kind === 'image'
        ? await probeImage(spooled.path, this.config.MEDIA_MAX_PIXELS)
        : type.kind === 'svg'
          ? await probeSvg(spooled.path)
          : null;
    return { spooled, type, image, fileName: safeFileName(spooled.clientName, type.ext) };
  }

  /** Stores a file and its thumbnails; `into` lists what may need removing if a later step fails. */
  private async store(site: SiteContext, file: PreparedFile, into: StoredFile[]): Promise<void> {
    const key = newStorageKey(site.id, file.spooled.clientName, file.type.ext);
    // Thumbnails first: storing the original may move the spool file away.
    const rendered =
      file.type.kind === 'image' && file.image
        ? await this.decoding.run(() =>
            this.renderThumbnails(file.spooled.path, file.type.contentType, file.image!.width),
          )
        : [];
    const result: StoredFile = { ...file, key, thumbnails: [] };
    into.push(result);
    await this.storage.putFile(
      key,
      file.spooled.path,
      file.spooled.size,
      this.metaOf(file.type.contentType, file.fileName),
    );
    for (const t of rendered) {
      const thumbnail = { ...t, key: thumbnailKey(key, t.width, t.ext) };
      result.thumbnails.push(thumbnail);
      await this.storage.putBuffer(thumbnail.key, t.data, { contentType: t.contentType });
    }
  }

  /**
   * The widest variant is rendered from the original (shrink-on-load keeps that cheap), the
   * narrower ones from it, so each upload decodes the original once.
   */
  private async renderThumbnails(path: string, contentType: string, width: number): Promise<RenderedThumbnail[]> {
    const widths = thumbnailWidths(this.config.MEDIA_THUMBNAIL_WIDTHS, width).reverse();
    const out: RenderedThumbnail[] = [];
    for (const w of widths) {
      const source = out.length ? out[0].data : path;
      out.push(await renderThumbnail(source, contentType, w, this.config.MEDIA_MAX_PIXELS));
    }
    return out.reverse();
  }

  private metaOf(contentType: string, fileName: string): ObjectMeta {
    // SVG can carry script: a bucket serving it directly must make browsers download it.
    return contentType === 'image/svg+xml'
      ? { contentType, contentDisposition: `attachment; filename="${fileName.replace(/[^\x20-\x7e]|["\\]/g, '_')}"` }
      : { contentType };
  }
}

/** `Harbour.JPG` -> `Harbour-150w.jpg`: a thumbnail's name says what it is. */
function variantName(fileName: string, width: number, ext: string): string {
  return `${defaultTitle(fileName)}-${width}w.${ext}`;
}
