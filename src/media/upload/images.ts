import type { Metadata } from 'sharp';
import { Problem } from '../../common/errors/problems';

let loaded: typeof import('sharp') | undefined;

/**
 * sharp (libvips), loaded on the first image: a process that serves no upload does not carry
 * its 20 MB. Decoded pixels are not worth caching between requests, and open file handles
 * would keep deleted spool files alive.
 */
function sharp(...args: Parameters<typeof import('sharp')>): ReturnType<typeof import('sharp')> {
  if (!loaded) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require('sharp') as typeof import('sharp');
    loaded.cache(false);
  }
  return loaded(...args);
}

export interface ImageInfo {
  /** As displayed, after the EXIF orientation. */
  width: number;
  height: number;
}

export interface RenderedThumbnail {
  width: number;
  height: number;
  data: Buffer;
  contentType: string;
  ext: string;
}

/** The format thumbnails are written in, per original type: animation and exotic formats are not kept. */
const THUMBNAIL_FORMATS: Record<string, { format: 'jpeg' | 'png' | 'webp'; contentType: string; ext: string }> = {
  'image/jpeg': { format: 'jpeg', contentType: 'image/jpeg', ext: 'jpg' },
  'image/tiff': { format: 'jpeg', contentType: 'image/jpeg', ext: 'jpg' },
  'image/png': { format: 'png', contentType: 'image/png', ext: 'png' },
  'image/apng': { format: 'png', contentType: 'image/png', ext: 'png' },
  'image/gif': { format: 'png', contentType: 'image/png', ext: 'png' },
  'image/webp': { format: 'webp', contentType: 'image/webp', ext: 'webp' },
  'image/avif': { format: 'webp', contentType: 'image/webp', ext: 'webp' },
};

export function imageTooLarge(maxPixels: number): Problem {
  return new Problem({
    status: 413,
    code: 'image_too_large',
    title: 'Payload too large',
    detail: `The image has more than ${maxPixels} pixels`,
  });
}

export function unreadableImage(): Problem {
  return new Problem({
    status: 400,
    code: 'unreadable_image',
    title: 'Bad request',
    detail: 'The image could not be read',
  });
}

/**
 * Reads the header only: dimensions are checked against `maxPixels` before anything is decoded,
 * so a small file that claims 30000 x 30000 pixels costs nothing (a decompression bomb).
 */
export async function probeImage(path: string, maxPixels: number): Promise<ImageInfo> {
  let meta: Metadata;
  try {
    // metadata() reads the header only; the limit is checked below, with its own answer.
    meta = await sharp(path, { limitInputPixels: false }).metadata();
  } catch {
    throw unreadableImage();
  }
  const { width, height } = meta;
  if (!width || !height) throw unreadableImage();
  if (width * height > maxPixels) throw imageTooLarge(maxPixels);
  const turned = (meta.orientation ?? 1) >= 5; // 5-8 swap the sides
  return turned ? { width: height, height: width } : { width, height };
}

/** Dimensions of an SVG as it declares them, or null (it is never rasterised). */
export async function probeSvg(path: string): Promise<ImageInfo | null> {
  try {
    const meta = await sharp(path, { limitInputPixels: false }).metadata();
    return meta.width && meta.height ? { width: meta.width, height: meta.height } : null;
  } catch {
    return null;
  }
}

/** Thumbnail widths for an image: only those narrower than it (never an enlargement). */
export function thumbnailWidths(configured: number[], imageWidth: number): number[] {
  return [...new Set(configured)].filter((w) => w < imageWidth).sort((a, b) => a - b);
}

/** One variant, EXIF orientation applied, metadata stripped. */
export async function renderThumbnail(
  input: string | Buffer,
  contentType: string,
  width: number,
  maxPixels: number,
): Promise<RenderedThumbnail> {
  const target = THUMBNAIL_FORMATS[contentType] ?? THUMBNAIL_FORMATS['image/jpeg'];
  const pipeline = sharp(input, { limitInputPixels: maxPixels, failOn: 'none' })
    .rotate()
    .resize({ width, withoutEnlargement: true });
  const encoded =
    target.format === 'jpeg'
      ? pipeline.jpeg({ quality: 82, mozjpeg: false })
      : target.format === 'png'
        ? pipeline.png({ compressionLevel: 8 })
        : pipeline.webp({ quality: 80 });
  try {
    const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, data, contentType: target.contentType, ext: target.ext };
  } catch {
    throw unreadableImage();
  }
}

/** Bounds how many images are decoded at once, so memory stays flat under concurrent uploads. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.size) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve)); // the slot is handed over
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
