/**
 * The pure parts of a campaign mail (docs/newsletter.md, "Campaigns" and "Tracking"): which links
 * of the content are tracked, the content made ready for tracking, and the open pixel.
 *
 * The content is parsed once, when a send is prepared, never per recipient: an HTML parser
 * (htmlparser2, linear time once its nesting is bounded: common/html/html-shape.ts is checked
 * first) finds each anchor's `href` value, and liquidjs's tokenizer says which
 * stretches of the source are plain text that Liquid outputs as written. A tracked link's value is
 * replaced in the source by a Liquid output of the click URL, and the pixel by another, so each
 * recipient's render only fills in their URLs.
 */
import { Parser } from 'htmlparser2';
import { TagToken, TokenKind, Tokenizer } from 'liquidjs';
import { checkHtmlShape } from '../../common/html/html-shape';
import { liquidEngine } from '../../common/templates/liquid';

/** The variables a prepared content reads (tenants' templates cannot name them: they are not campaign variables). */
export const CLICK_URLS_VARIABLE = '_sitebase_click';
export const PIXEL_VARIABLE = '_sitebase_pixel';

/** An anchor's quoted `href` value in some HTML: [start, end) and its text as written. */
interface HrefSpot {
  start: number;
  end: number;
  raw: string;
}

/** A link worth tracking: absolute http(s), and not made per recipient by a Liquid tag. */
function trackable(raw: string): boolean {
  return /^https?:\/\/\S+$/i.test(raw.trim()) && !raw.includes('{{') && !raw.includes('{%');
}

/** The text of an HTML attribute value as a URL (`&amp;` is `&`). */
export function decodeAttribute(raw: string): string {
  return raw
    .trim()
    .replace(/&(amp|quot|#39|apos|lt|gt);/g, (_m, e: string) =>
      e === 'amp' ? '&' : e === 'quot' ? '"' : e === 'lt' ? '<' : e === 'gt' ? '>' : "'",
    );
}

/**
 * One pass of htmlparser2 over the HTML: the first quoted `href` of each `<a>` (entities left as
 * written), and where the first `</body>` starts (-1: none). HTML over the shape limits
 * (htmlparser2's cost grows with the square of the nesting) is refused first: HtmlLimitError.
 */
function scan(html: string): { hrefs: HrefSpot[]; bodyEnd: number } {
  checkHtmlShape(html);
  const hrefs: HrefSpot[] = [];
  let bodyEnd = -1;
  let inAnchor = false;
  let hrefSeen = false;
  const parser = new Parser(
    {
      onopentagname(name) {
        inAnchor = name === 'a';
        hrefSeen = false;
      },
      onattribute(name, value, quote) {
        if (!inAnchor || hrefSeen || name !== 'href') return;
        hrefSeen = true;
        if (quote !== '"' && quote !== "'") return;
        // In onattribute, endIndex is just past the closing quote.
        const end = parser.endIndex - 1;
        const start = end - value.length;
        if (html.slice(start, end) === value) hrefs.push({ start, end, raw: value });
      },
      onopentag() {
        inAnchor = false;
      },
      onclosetag(name, isImplied) {
        if (name === 'body' && !isImplied && bodyEnd < 0) bodyEnd = parser.startIndex;
      },
    },
    { decodeEntities: false, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return { hrefs, bodyEnd };
}

/**
 * The stretches [start, end) of a Liquid source that are output as written: text outside tags
 * and outputs, and not inside `{% raw %}` or `{% comment %}`. Null when the source does not
 * tokenize (it was checked when saved; then nothing is spliced).
 */
function literalStretches(source: string): Array<[number, number]> | null {
  let tokens;
  try {
    tokens = new Tokenizer(source).readTopLevelTokens(liquidEngine('html').options);
  } catch {
    return null;
  }
  const stretches: Array<[number, number]> = [];
  let raw = false;
  let comments = 0;
  for (const token of tokens) {
    if (token.kind === TokenKind.Tag) {
      const name = (token as TagToken).name;
      if (name === 'raw') raw = true;
      else if (name === 'endraw') raw = false;
      else if (name === 'comment') comments += 1;
      else if (name === 'endcomment') comments = Math.max(0, comments - 1);
    } else if (token.kind === TokenKind.HTML && !raw && comments === 0) {
      stretches.push([token.begin, token.end]);
    }
  }
  return stretches;
}

/** Whether [start, end) lies inside one of the sorted stretches (they are few and ordered: a moving cursor). */
function insideOf(stretches: Array<[number, number]>) {
  let i = 0;
  return (start: number, end: number): boolean => {
    while (i < stretches.length && stretches[i][1] < end) i += 1;
    return i < stretches.length && stretches[i][0] <= start && end <= stretches[i][1];
  };
}

/** The tracked links of some HTML, each once, in the order they first appear (raw attribute text, trimmed). */
export function extractLinks(html: string): string[] {
  const seen = new Set<string>();
  for (const { raw } of scan(html).hrefs) if (trackable(raw)) seen.add(raw.trim());
  return [...seen];
}

/**
 * Gives the campaign's link list with the links of new content appended: an index, once in a
 * mail, must keep naming the same URL, so edits (while paused) never renumber.
 */
export function mergeLinks(known: string[], content: string): string[] {
  const all = [...known];
  const have = new Set(known);
  for (const link of extractLinks(content))
    if (!have.has(link)) {
      have.add(link);
      all.push(link);
    }
  return all;
}

/** Replaces [start, end) pieces of `text` (sorted, not overlapping), in one pass. */
function splice(text: string, pieces: Array<{ start: number; end: number; by: string }>): string {
  const out: string[] = [];
  let at = 0;
  for (const p of pieces) {
    out.push(text.slice(at, p.start), p.by);
    at = p.end;
  }
  out.push(text.slice(at));
  return out.join('');
}

/**
 * Rewrites each tracked link of some HTML (no Liquid) to `clickUrl(index)`; links the campaign
 * does not know stay as they are.
 */
export function rewriteLinks(html: string, indexOf: Map<string, number>, clickUrl: (index: number) => string): string {
  const pieces = scan(html).hrefs.flatMap(({ start, end, raw }) => {
    const index = indexOf.get(raw.trim());
    return index === undefined || !trackable(raw) ? [] : [{ start, end, by: escapeAttribute(clickUrl(index)) }];
  });
  return splice(html, pieces);
}

/** Appends a 1x1 image at the end of the body (before `</body>` when there is one). */
export function withPixel(html: string, pixelUrl: string): string {
  const { bodyEnd } = scan(html);
  const at = bodyEnd < 0 ? html.length : bodyEnd;
  return splice(html, [{ start: at, end: at, by: pixelImage(pixelUrl) }]);
}

export function pixelImage(pixelUrl: string): string {
  return `<img src="${escapeAttribute(pixelUrl)}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px">`;
}

/** A campaign's Liquid content made ready for tracked sends, and the link indexes it reads. */
export interface TrackingSource {
  source: string;
  linkIndexes: number[];
}

/**
 * The content with each known link's (default: every tracked link's) `href` value replaced by `{{ _sitebase_click[i] }}` (the
 * HTML engine escapes it as an attribute value) and `{{ _sitebase_pixel | raw }}` before the first
 * `</body>` (or at the end). Only values in text Liquid outputs as written are replaced: not
 * inside `{% raw %}` or `{% comment %}`, never across a tag.
 */
export function trackingSource(content: string, known?: Map<string, number>): TrackingSource {
  const stretches = literalStretches(content) ?? [];
  const inside = insideOf(stretches);
  const { hrefs, bodyEnd } = scan(content);
  // Without the campaign's index (a trial at save), the links are numbered as a send would.
  const indexOf =
    known ??
    new Map([...new Set(hrefs.filter((h) => trackable(h.raw)).map((h) => h.raw.trim()))].map((l, i) => [l, i]));
  const pieces: Array<{ start: number; end: number; by: string }> = [];
  const used = new Set<number>();
  for (const { start, end, raw } of hrefs) {
    const index = indexOf.get(raw.trim());
    if (index === undefined || !trackable(raw) || !inside(start, end)) continue;
    pieces.push({ start, end, by: `{{ ${CLICK_URLS_VARIABLE}[${index}] }}` });
    used.add(index);
  }
  const pixelAt = bodyEnd >= 0 && insideOf(stretches)(bodyEnd, bodyEnd + 1) ? bodyEnd : content.length;
  pieces.push({ start: pixelAt, end: pixelAt, by: `{{ ${PIXEL_VARIABLE} | raw }}` });
  pieces.sort((a, b) => a.start - b.start);
  return { source: splice(content, pieces), linkIndexes: [...used] };
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}
