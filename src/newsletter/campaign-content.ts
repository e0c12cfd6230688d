/**
 * The pure parts of a campaign mail (docs/newsletter.md, "Campaigns"): which links of the content
 * are tracked, rewriting them to click links, and the open pixel.
 */

/** `<a … href="…">`: the quote, then the attribute's raw text. */
const ANCHOR_HREF = /(<a\b[^>]*?\bhref\s*=\s*)(["'])(.*?)\2/gis;

/** A link worth tracking: absolute http(s), and not made per recipient by a Liquid tag. */
function trackable(raw: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(raw.trim()) && !raw.includes('{{') && !raw.includes('{%');
}

/** The text of an HTML attribute value as a URL (`&amp;` is `&`). */
export function decodeAttribute(raw: string): string {
  return raw
    .trim()
    .replace(/&(amp|quot|#39|apos|lt|gt);/g, (_m, e: string) =>
      e === 'amp' ? '&' : e === 'quot' ? '"' : e === 'lt' ? '<' : e === 'gt' ? '>' : "'",
    );
}

/** The tracked links of some HTML, each once, in the order they first appear (raw attribute text). */
export function extractLinks(html: string): string[] {
  const seen = new Set<string>();
  for (const m of html.matchAll(ANCHOR_HREF)) if (trackable(m[3])) seen.add(m[3].trim());
  return [...seen];
}

/**
 * Gives the campaign's link list with the links of new content appended: an index, once in a
 * mail, must keep naming the same URL, so edits (while paused) never renumber.
 */
export function mergeLinks(known: string[], content: string): string[] {
  const all = [...known];
  for (const link of extractLinks(content)) if (!all.includes(link)) all.push(link);
  return all;
}

/**
 * Rewrites each tracked link of rendered HTML to `clickUrl(index)`; links the campaign does not
 * know (made per recipient) stay as they are.
 */
export function rewriteLinks(html: string, indexOf: Map<string, number>, clickUrl: (index: number) => string): string {
  return html.replace(ANCHOR_HREF, (whole, head: string, quote: string, raw: string) => {
    const index = indexOf.get(raw.trim());
    if (index === undefined) return whole;
    return `${head}${quote}${escapeAttribute(clickUrl(index))}${quote}`;
  });
}

/** Appends a 1x1 image at the end of the body (before `</body>` when there is one). */
export function withPixel(html: string, pixelUrl: string): string {
  const img = `<img src="${escapeAttribute(pixelUrl)}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px">`;
  const at = html.search(/<\/body>/i);
  return at < 0 ? `${html}${img}` : `${html.slice(0, at)}${img}${html.slice(at)}`;
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}
