import { stableJson } from '../common/idempotency/stable-json';
import type { ContentStatus } from './content-status';
import type { ContentAuthor, ContentFormat, ContentItemEntity } from './entities/content-item.entity';

/** Every field of an item as a revision keeps it (timestamps as ISO strings). */
export interface ContentSnapshot {
  type: string;
  title: string;
  slug: string;
  content: string;
  format: ContentFormat;
  excerpt: string;
  status: ContentStatus;
  publishAt: string | null;
  publishedAt: string | null;
  tags: string[];
  categories: string[];
  authors: ContentAuthor[];
  template: string;
  thumbnail: string;
  description: string;
  customFields: Record<string, unknown>;
  attachmentIds: number[];
}

/** What a restore brings back: the edited fields, not the lifecycle (status and dates stay). */
export const RESTORED_FIELDS = [
  'type',
  'title',
  'slug',
  'content',
  'format',
  'excerpt',
  'tags',
  'categories',
  'authors',
  'template',
  'thumbnail',
  'description',
  'customFields',
  'attachmentIds',
] as const;

export function snapshotOf(item: ContentItemEntity): ContentSnapshot {
  return {
    type: item.type,
    title: item.title,
    slug: item.slug,
    content: item.content,
    format: item.format,
    excerpt: item.excerpt,
    status: item.status,
    publishAt: item.publishAt?.toISOString() ?? null,
    publishedAt: item.publishedAt?.toISOString() ?? null,
    tags: [...item.tags],
    categories: [...item.categories],
    authors: item.authors.map((a) => ({ id: a.id, name: a.name })),
    template: item.template,
    thumbnail: item.thumbnail,
    description: item.description,
    customFields: item.customFields,
    attachmentIds: [...item.attachmentIds],
  };
}

/** Stable comparison of two snapshots (key order of custom fields does not matter). */
export function sameSnapshot(a: ContentSnapshot, b: ContentSnapshot): boolean {
  return stableJson(a) === stableJson(b);
}
