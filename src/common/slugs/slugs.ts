import slugify from 'slugify';
import { EntityManager, EntityTarget } from 'typeorm';
import { namedXactLock } from '../../database/sql';
import { trimTrailing } from '../input/trim-trailing';

/** Lower-case words of a-z and 0-9 joined by single dashes; never all digits (digits mean an id). */
export const SLUG_PATTERN = /^(?!\d+$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_MAX_LENGTH = 200;
export const SLUG_MESSAGE =
  'must be lower-case letters and digits in words joined by single dashes, and not only digits';
/** A slug prefix (`news` in `news-hello-world`): the same words, digits allowed alone. */
export const SLUG_PREFIX_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_PREFIX_MESSAGE = 'must be lower-case letters and digits in words joined by single dashes';
/** Generated slugs keep room for a prefix and a `-N` suffix. */
const GENERATED_MAX_LENGTH = 80;

/** `text` as lower-case latin words joined by dashes ('' when nothing latin is left). */
export function slugOf(text: string): string {
  return slugify(text, { lower: true, strict: true, trim: true });
}

/** The words of `text` as a slug part ('' when nothing latin is left, e.g. a Japanese title). */
export function slugPart(text: string, max = GENERATED_MAX_LENGTH): string {
  const full = slugOf(text);
  if (full.length <= max) return full;
  const cut = full.slice(0, max);
  // Cut at a word boundary when there is one.
  const dash = cut.lastIndexOf('-');
  return dash > max / 2 ? cut.slice(0, dash) : trimTrailing(cut, '-');
}

/**
 * The base slug of a new item: the given slug or the title's words, behind the optional prefix.
 * `fallback` (e.g. the content type) stands in when the title has no latin words, and an
 * all-digit result gets it in front, so the slug cannot be read as an id.
 */
export function baseSlug(input: { slug?: string; title: string; prefix?: string; fallback: string }): string {
  const main = input.slug ?? (slugPart(input.title) || slugPart(input.fallback) || 'item');
  const slug = input.prefix ? `${input.prefix}-${main}` : main;
  return /^\d+$/.test(slug) ? `${slugPart(input.fallback) || 'item'}-${slug}` : slug;
}

/**
 * `base` when nobody uses it, else `base-N` with N one more than the highest suffix in use.
 * `taken` holds the slugs that start with `base` (others are ignored).
 */
export function nextFreeSlug(base: string, taken: Iterable<string>): string {
  let baseTaken = false;
  let highest = 1;
  for (const slug of taken) {
    if (slug === base) baseTaken = true;
    else if (slug.startsWith(`${base}-`)) {
      const n = slug.slice(base.length + 1);
      if (/^[1-9]\d{0,8}$/.test(n)) highest = Math.max(highest, Number(n));
    }
  }
  return baseTaken ? `${base}-${highest + 1}` : base;
}

/** The rows a slug allocation reads: any site-scoped entity with a unique (site_id, slug). */
interface Slugged {
  id: number;
  slug: string;
}

/**
 * The slug a row of `entity` gets in a site: `base` itself when it is free, else `base-N`
 * (nextFreeSlug). With `explicit`, the caller named the slug: it is `base` or nothing (null,
 * the caller's 409). `exceptId` is the row being renamed. One index range scan of the
 * (site_id, slug) unique index: the column is C-collated, so `base-…` is the byte range
 * [base-, base.). Allocations of one base in a site are serialised (an advisory lock held to
 * the end of `em`'s transaction), so a generated slug is not lost to a parallel one; the unique
 * index still decides other races (an explicit `base-2` beside a generated one), and callers map
 * its violation to 409.
 */
export async function allocateSlug<E extends Slugged>(
  em: EntityManager,
  entity: EntityTarget<E>,
  siteId: number,
  base: string,
  options: { explicit?: boolean; exceptId?: number } = {},
): Promise<string | null> {
  // Writers of one base slug take turns until their transaction ends: the next one reads the slug
  // just taken and picks `-N`, instead of both picking it and one failing on the unique index.
  await namedXactLock(em, `slug:${em.getRepository(entity).metadata.tableName}:${siteId}:${base}`);
  const rows = await em
    .createQueryBuilder(entity, 'x')
    .select(['x.id', 'x.slug'])
    .where('x.site_id = :siteId', { siteId })
    .andWhere("(x.slug = :base OR (x.slug > :base || '-' AND x.slug < :base || '.'))", { base })
    .getMany();
  const taken = rows.filter((r) => r.id !== options.exceptId).map((r) => r.slug);
  if (options.explicit) return taken.includes(base) ? null : base;
  return nextFreeSlug(base, taken);
}
