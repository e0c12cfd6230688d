import { createReadStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { assertStorageKey } from '../media-keys';
import { ByteRange, MediaStorage, ObjectRead } from './media-storage';

/** Files under one folder on this machine, served by the app at MEDIA_PUBLIC_PATH. */
export class LocalMediaStorage extends MediaStorage {
  readonly driver = 'local' as const;
  private readonly root: string;

  constructor(root: string) {
    super();
    this.root = resolve(root);
  }

  async putFile(key: string, path: string, _size: number): Promise<void> {
    const target = await this.prepare(key);
    try {
      await rename(path, target);
    } catch (err) {
      // The spool folder may sit on another file system than the media folder.
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      await copyFile(path, target);
      await unlink(path).catch(() => undefined);
    }
  }

  async putBuffer(key: string, data: Buffer): Promise<void> {
    await writeFile(await this.prepare(key), data, { mode: 0o644 });
  }

  async read(key: string, range?: ByteRange): Promise<ObjectRead | null> {
    const size = await this.sizeOf(key);
    if (size === null) return null;
    return { body: createReadStream(this.pathOf(key), range ? { start: range.start, end: range.end } : {}), size };
  }

  private async sizeOf(key: string): Promise<number | null> {
    try {
      const s = await stat(this.pathOf(key));
      return s.isFile() ? s.size : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(keys: string[]): Promise<void> {
    for (const key of keys) await rm(this.pathOf(key), { force: true });
  }

  directUrl(): null {
    return null;
  }

  /** The file of a key; keys are checked so that no path can leave the root. */
  pathOf(key: string): string {
    assertStorageKey(key);
    const path = join(this.root, ...key.split('/'));
    if (!path.startsWith(this.root + sep)) throw new Error('Storage key escapes the media folder');
    return path;
  }

  private async prepare(key: string): Promise<string> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    return target;
  }
}
