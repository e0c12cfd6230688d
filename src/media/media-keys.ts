import { randomBytes } from 'node:crypto';
import slugify from 'slugify';
import { trimTrailing } from '../common/input/trim-trailing';

/**
 * Storage keys are made here and nowhere else: `sites/<siteId>/<random>/<slug>.<ext>`. The slug
 * comes from the client's file name but is reduced to [a-z0-9-], and the extension comes from
 * the detected type, so a key can never hold `..`, a slash of the client's or a misleading type.
 */
const SEGMENT = '[a-z0-9]+(?:[._-][a-z0-9]+)*';
export const STORAGE_KEY_PATTERN = new RegExp(`^${SEGMENT}(?:/${SEGMENT})*$`);
const MAX_KEY_LENGTH = 300;
const MAX_SLUG = 60;
const MAX_FILE_NAME = 255;

export function isStorageKey(key: string): boolean {
  return key.length <= MAX_KEY_LENGTH && STORAGE_KEY_PATTERN.test(key);
}

export function assertStorageKey(key: string): void {
  if (!isStorageKey(key)) throw new Error('Invalid storage key');
}

/** The base name of what a client sent, without folders or control characters (shown, never a path). */
export function safeFileName(clientName: string | undefined, ext: string): string {
  const base = (clientName ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base
    // eslint-disable-next-line no-control-regex -- control characters are what it removes
    .replace(/[\u0000-\u001f\u007f"]/g, '')
    .trim()
    .slice(0, MAX_FILE_NAME);
  return clean === '' || clean === '.' || clean === '..' ? `file.${ext}` : clean;
}

export function fileSlug(clientName: string | undefined): string {
  const base = (clientName ?? '').split(/[\\/]/).pop() ?? '';
  const stem = base.replace(/\.[^.]*$/, '').replace(/[._]+/g, ' ');
  const slug = trimTrailing(slugify(stem, { lower: true, strict: true, trim: true }).slice(0, MAX_SLUG), '-');
  return slug || 'file';
}

export function newStorageKey(siteId: number, clientName: string | undefined, ext: string): string {
  return `sites/${siteId}/${randomBytes(10).toString('hex')}/${fileSlug(clientName)}.${ext}`;
}

/** `sites/1/ab12/photo.jpg` -> `sites/1/ab12/photo-150w.jpg`. */
export function thumbnailKey(originalKey: string, width: number, ext: string): string {
  return `${originalKey.replace(/\.[a-z0-9]+$/, '')}-${width}w.${ext}`;
}

/** The file title when the client gives none: its name without extension. */
export function defaultTitle(fileName: string): string {
  return fileName.replace(/\.[^.]*$/, '') || fileName;
}
