import {
  DeleteObjectsCommand,
  GetObjectCommand,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { assertStorageKey } from '../media-keys';
import { ByteRange, MediaStorage, ObjectMeta, ObjectRead } from './media-storage';
import { trimTrailing } from '../../common/input/trim-trailing';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
  publicUrl?: string;
}

/** Keys never change once written, so caches may keep them forever. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** DeleteObjects takes at most this many keys per call. */
const DELETE_BATCH = 1000;

/** Any S3-compatible object store: AWS S3, MinIO, Cloudflare R2 (docs/media.md). */
export class S3MediaStorage extends MediaStorage {
  readonly driver = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly options: S3StorageOptions) {
    super();
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint || undefined,
      forcePathStyle: options.forcePathStyle,
      credentials:
        options.accessKeyId && options.secretAccessKey
          ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
          : undefined,
      // Checksums only where S3 requires them: MinIO, R2 and others differ on the newer trailers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async putFile(key: string, path: string, size: number, meta: ObjectMeta): Promise<void> {
    assertStorageKey(key);
    // A known length lets the SDK stream the file instead of buffering it.
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: key,
        Body: createReadStream(path),
        ContentLength: size,
        ContentType: meta.contentType,
        ContentDisposition: meta.contentDisposition,
        CacheControl: IMMUTABLE,
      }),
    );
  }

  async putBuffer(key: string, data: Buffer, meta: ObjectMeta): Promise<void> {
    assertStorageKey(key);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: key,
        Body: data,
        ContentLength: data.length,
        ContentType: meta.contentType,
        ContentDisposition: meta.contentDisposition,
        CacheControl: IMMUTABLE,
      }),
    );
  }

  async read(key: string, range?: ByteRange): Promise<ObjectRead | null> {
    assertStorageKey(key);
    try {
      const out = await this.client.send(
        new GetObjectCommand({
          Bucket: this.options.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      const total = out.ContentRange ? Number(out.ContentRange.split('/')[1]) : Number(out.ContentLength ?? 0);
      return { body: out.Body as Readable, size: total };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      batch.forEach(assertStorageKey);
      const out = await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.options.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      const failed = (out.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length) throw new Error(`S3 could not delete ${failed.length} object(s): ${failed[0].Code}`);
    }
  }

  directUrl(key: string): string | null {
    return this.options.publicUrl ? `${trimTrailing(this.options.publicUrl, '/')}/${key}` : null;
  }

  onModuleDestroy(): void {
    this.client.destroy();
  }
}

function isMissing(err: unknown): boolean {
  if (err instanceof NoSuchKey || err instanceof NotFound) return true;
  return (
    err instanceof S3ServiceException &&
    (err.$metadata?.httpStatusCode === 404 || err.name === 'NoSuchKey' || err.name === 'NotFound')
  );
}
