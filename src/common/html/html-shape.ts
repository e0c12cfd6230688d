import { Parser } from 'htmlparser2';
import { TemplateLimitError } from '../templates/liquid';

/**
 * The shape of tenant HTML, checked before any library that costs more than the HTML's size
 * parses it (docs/security.md, "Work on tenant input"). htmlparser2 (under juice, html-to-text and
 * the campaign link scan) keeps its open elements in an array it `unshift`s: nesting d deep costs
 * d², and 200,000 nested `<b>` held a parse for seconds; juice's serializer recurses per level (a
 * stack overflow at about 20,000). juice tries every CSS selector on every element.
 */
export const HTML_LIMITS = {
  /** Elements open inside each other: mail layouts nest tables a few dozen deep. */
  depth: 256,
  /** Elements of one document (a long newsletter has a few thousand). */
  elements: 50_000,
} as const;

export const CSS_LIMITS = {
  /** Selectors of the `<style>` blocks (`a, b {}` is two). */
  selectors: 2_000,
  /** Selectors × elements: juice matches each selector against each element. */
  pairs: 4_000_000,
  /**
   * Top-level nodes above which a fragment is inlined inside one wrapper element: cheerio (under
   * juice) compares every top-level node with every other, per selector.
   */
  wrapAbove: 64,
} as const;

/** Tenant HTML over one of HTML_LIMITS or CSS_LIMITS, or over the inlining time budget. */
export class HtmlLimitError extends TemplateLimitError {
  override readonly html = true;
  constructor(message: string) {
    super(message);
    this.name = 'HtmlLimitError';
  }
}

export interface HtmlShape {
  elements: number;
  /** The deepest nesting seen (the scan stops past HTML_LIMITS.depth). */
  depth: number;
  /** Nodes at the top level (elements and non-blank text). */
  topLevel: number;
  /** The text of the `<style>` blocks. */
  style: string;
}

const count = (n: number) => n.toLocaleString('en');

/**
 * One pass of htmlparser2's event parser (no tree), in time linear in the HTML: it stops as soon
 * as the nesting passes HTML_LIMITS.depth, so its own d² never grows beyond that. Throws
 * HtmlLimitError naming the limit.
 */
export function checkHtmlShape(html: string): HtmlShape {
  let depth = 0;
  let deepest = 0;
  let elements = 0;
  let topLevel = 0;
  let inStyle = 0;
  let tooDeep = false;
  const style: string[] = [];
  const parser = new Parser(
    {
      onopentagname(name) {
        if (depth === 0) topLevel += 1;
        depth += 1;
        elements += 1;
        if (name === 'style') inStyle += 1;
        if (depth > deepest) deepest = depth;
        if (depth > HTML_LIMITS.depth) {
          tooDeep = true;
          parser.pause();
        }
      },
      onclosetag(name) {
        depth -= 1;
        if (name === 'style' && inStyle > 0) inStyle -= 1;
      },
      ontext(text) {
        if (inStyle > 0) style.push(text);
        else if (depth === 0 && text.trim() !== '') topLevel += 1;
      },
    },
    { decodeEntities: false, lowerCaseTags: true },
  );
  parser.end(html);
  if (tooDeep)
    throw new HtmlLimitError(`nests elements more than ${HTML_LIMITS.depth} deep (at most ${HTML_LIMITS.depth})`);
  if (elements > HTML_LIMITS.elements)
    throw new HtmlLimitError(`has ${count(elements)} elements (at most ${count(HTML_LIMITS.elements)})`);
  return { elements, depth: deepest, topLevel, style: style.join('\n') };
}

/**
 * The selectors of some CSS, counted in one pass: each rule's prelude (the text before a `{`,
 * at-rules aside) counts one more than its commas. Commas inside `:is(a, b)` count too: an
 * overestimate, never an underestimate.
 */
export function countSelectors(css: string): number {
  let selectors = 0;
  /** Where the current prelude starts: its first character that is not blank or a comment (-1: none yet). */
  let start = -1;
  let i = 0;
  while (i < css.length) {
    const c = css.charCodeAt(i);
    if (c === 0x2f /* / */ && css.charCodeAt(i + 1) === 0x2a /* * */) {
      const end = css.indexOf('*/', i + 2);
      i = end < 0 ? css.length : end + 2;
      continue;
    }
    if (c === 0x7b /* { */) {
      if (start >= 0 && css.charCodeAt(start) !== 0x40 /* @ */) {
        selectors += 1;
        for (let j = start; j < i; j++) if (css.charCodeAt(j) === 0x2c /* , */) selectors += 1;
      }
      start = -1;
    } else if (c === 0x7d /* } */ || c === 0x3b /* ; */) {
      start = -1;
    } else if (start < 0 && c > 0x20) {
      start = i;
    }
    i += 1;
  }
  return selectors;
}

/** Checks what inlining the CSS of HTML of this shape costs juice: throws HtmlLimitError over CSS_LIMITS. */
export function checkInlineShape(shape: HtmlShape): number {
  const selectors = countSelectors(shape.style);
  if (selectors > CSS_LIMITS.selectors)
    throw new HtmlLimitError(`has ${count(selectors)} CSS selectors (at most ${count(CSS_LIMITS.selectors)})`);
  const pairs = selectors * shape.elements;
  if (pairs > CSS_LIMITS.pairs)
    throw new HtmlLimitError(
      `has ${count(selectors)} CSS selectors and ${count(shape.elements)} elements, ${count(pairs)} pairs ` +
        `to match when inlining (at most ${count(CSS_LIMITS.pairs)})`,
    );
  return selectors;
}
