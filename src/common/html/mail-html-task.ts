import { compile } from 'html-to-text';
import juice from 'juice';
import { checkHtmlShape, checkInlineShape, CSS_LIMITS, HtmlLimitError, HtmlShape } from './html-shape';

/**
 * The work on a mail's HTML that costs more than its size: CSS inlining (juice) and the text part
 * (html-to-text). Run by the worker threads of MailHtml (mail-html.ts), each task within a time
 * budget; every input's shape is checked first (html-shape.ts).
 */

/**
 * The text part made from the HTML: html-to-text's options compiled once (its `convert` compiles
 * them on every call, which cost a campaign send more than rendering the HTML did).
 */
const compiledToText = compile({ wordwrap: 78, selectors: [{ selector: 'img', format: 'skip' }] });

/** Whether some HTML has a `<style>` block to inline. */
export const HAS_STYLE = /<style[\s>]/i;

/** A fragment with many top-level nodes is inlined inside this element, then taken out of it. */
const WRAPPER = 'sitebase-inline-root';

/** The text of HTML whose shape was checked. */
export function textOfChecked(html: string): string {
  return compiledToText(html);
}

/** The text of some HTML, its shape checked first (HtmlLimitError). */
export function textOf(html: string): string {
  checkHtmlShape(html);
  return compiledToText(html);
}

/** The HTML with its `<style>` inlined (juice), its shape checked first (HtmlLimitError). */
export function inlineCss(html: string, shape: HtmlShape = checkHtmlShape(html)): string {
  if (!HAS_STYLE.test(html)) return html;
  checkInlineShape(shape);
  if (shape.topLevel <= CSS_LIMITS.wrapAbove || html.toLowerCase().includes(WRAPPER)) return juice(html);
  const out = juice(`<${WRAPPER}>${html}</${WRAPPER}>`);
  const open = out.startsWith(`<${WRAPPER}`) ? out.indexOf('>') + 1 : 0;
  const close = out.endsWith(`</${WRAPPER}>`) ? out.length - WRAPPER.length - 3 : out.length;
  return out.slice(open, close);
}

export interface MailHtmlTask {
  html: string;
  /** Inline the `<style>` blocks. */
  inline: boolean;
  /** Make the text part from the (inlined) HTML. */
  text: boolean;
  /** Set to 1 by the worker as it starts the task: the budget counts from then, not from the queue. */
  started?: Int32Array;
}

export type MailHtmlResult = { html: string; text?: string } | { limit: string };

/** One task, as a worker runs it (piscina calls the default export). */
export default function runMailHtmlTask(task: MailHtmlTask): MailHtmlResult {
  if (task.started) Atomics.store(task.started, 0, 1);
  try {
    const shape = checkHtmlShape(task.html);
    const html = task.inline ? inlineCss(task.html, shape) : task.html;
    return task.text ? { html, text: compiledToText(html) } : { html };
  } catch (err) {
    if (err instanceof HtmlLimitError) return { limit: err.message };
    throw err;
  }
}
