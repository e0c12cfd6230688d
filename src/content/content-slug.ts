import slugify from 'slugify';

/** Lower-case words of a-z and 0-9 joined by single dashes; never all digits (API.md §3: digits mean an id). */
export const SLUG_PATTERN = /^(?!\d+$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_MAX_LENGTH = 200;
/** Generated slugs keep room for a prefix and a `-N` suffix. */
const GENERATED_MAX_LENGTH = 80;

/** The words of `text` as a slug part ('' when nothing latin is left, e.g. a Japanese title). */
export function slugPart(text: string, max = GENERATED_MAX_LENGTH): string {
  const full = slugify(text, { lower: true, strict: true, trim: true });
  if (full.length <= max) return full;
  const cut = full.slice(0, max);
  // Cut at a word boundary when there is one.
  const dash = cut.lastIndexOf('-');
  return dash > max / 2 ? cut.slice(0, dash) : cut.replace(/-+$/, '');
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
