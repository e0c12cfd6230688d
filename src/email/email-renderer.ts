import { Injectable } from '@nestjs/common';
import { Template } from 'liquidjs';
import { HtmlLimitError } from '../common/html/html-shape';
import { MailHtml } from '../common/html/mail-html';
import {
  liquidEngine,
  PartFault,
  partFault,
  renderBounded,
  renderProblem,
  templateProblem,
} from '../common/templates/liquid';
import type { VariablesSchema } from './template-types';

/** The parts of a template, or of a mail once rendered. */
export interface MailParts {
  subject: string;
  html: string;
  /** Null in a template: made from the HTML. */
  text: string | null;
}

export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

/** Variables every template receives besides its type's: the sending site. */
export const SITE_VARIABLE = 'site';

const PARSED_CACHE_MAX = 1000;

/**
 * Liquid templates (liquidjs): logic-light, and in HTML every `{{ output }}` is escaped unless
 * it says `| raw`. Subjects and text parts are plain text, rendered without escaping. CSS in
 * `<style>` is inlined (juice) for mail clients that drop it, once per source (the template's
 * HTML, a mail's `html`), never per mail; HTML a variable brings (`| raw`) is inserted as its
 * sender inlined it (a campaign inlines its content once per send). The text part is made from
 * the HTML (html-to-text) when a template has none. The engines are the sandboxed ones of
 * common/templates/liquid.ts: no file, no partial, a bounded render; inlining and large text
 * parts run in MailHtml's worker threads, within their shape limits and time budget.
 */
@Injectable()
export class EmailRenderer {
  private readonly html = liquidEngine('html');
  private readonly plain = liquidEngine('text');
  private readonly parsed = new Map<string, Template[]>();

  constructor(private readonly mailHtml: MailHtml) {}

  /**
   * Parses every part and checks that each variable it reads is one the type declares (or
   * `site`); then, with `sample` (the type's sample data and a site), renders it as a send would,
   * within the budget. A 400 names the part, the line and the fault: a syntax error, a tag that
   * names a file (`include`, `render`, `layout`), an unknown variable (`validation_failed`), or a
   * render over its budget (`template_limit_exceeded`, also for HTML over the shape limits of
   * common/html/html-shape.ts or CSS that cannot be inlined within its budget).
   */
  async check(parts: MailParts, variables: VariablesSchema, sample?: Record<string, unknown>): Promise<void> {
    const faults: PartFault[] = [];
    for (const [field, source] of Object.entries(parts) as Array<[keyof MailParts, string | null]>) {
      if (source === null) continue;
      let templates: Template[];
      try {
        templates = this.parse(field, source);
      } catch (err) {
        faults.push(partFault(field, err));
        continue;
      }
      const engine = field === 'html' ? this.html : this.plain;
      for (const segments of engine.globalVariableSegmentsSync(templates)) {
        const unknown = unknownVariable(segments, variables);
        if (unknown)
          faults.push({
            path: field,
            message: `uses ${unknown}, which this template type does not have`,
            limit: false,
          });
      }
      if (field === 'html' && faults.length === 0)
        try {
          await this.mailHtml.inlineSource(source);
        } catch (err) {
          if (!(err instanceof HtmlLimitError)) throw err;
          faults.push(partFault(field, err));
          continue;
        }
      if (sample === undefined || faults.length > 0) continue;
      try {
        renderBounded(engine, templates, sample);
      } catch (err) {
        faults.push(partFault(field, err, 'does not render with the sample data: '));
      }
    }
    if (faults.length > 0) throw templateProblem(faults);
  }

  /**
   * Renders a template with data already checked against its type. The HTML source's CSS is
   * inlined once (MailHtml caches it; juice parses the whole document, and doing it on every mail
   * cost more than rendering it; Liquid tags survive: they are text or attribute values to the
   * HTML parser). The Liquid renders are synchronous: the budget is wall-clock time, and an async
   * render's awaits would let other work count against it.
   */
  async render(parts: MailParts, data: Record<string, unknown>): Promise<RenderedMail> {
    try {
      const source = await this.mailHtml.inlineSource(parts.html);
      const subject = oneLine(String(renderBounded(this.plain, this.parse('subject', parts.subject), data)));
      const html = String(renderBounded(this.html, this.parse('html', source), data));
      const text =
        parts.text !== null
          ? String(renderBounded(this.plain, this.parse('text', parts.text), data))
          : await this.mailHtml.text(html);
      return { subject, html, text };
    } catch (err) {
      throw renderProblem(err, 'template', 'The template');
    }
  }

  /** The subject alone, as `render` makes it (a copy whose body is rendered when it is sent). */
  subject(parts: MailParts, data: Record<string, unknown>): string {
    try {
      return oneLine(String(renderBounded(this.plain, this.parse('subject', parts.subject), data)));
    } catch (err) {
      throw renderProblem(err, 'template', 'The template');
    }
  }

  /** A mail given as is (no template language): CSS inlined, text made when absent. */
  async plainMail(subject: string, html: string | undefined, text: string | undefined): Promise<RenderedMail> {
    if (html === undefined) return { subject: oneLine(subject), html: '', text: text ?? '' };
    try {
      const done = await this.mailHtml.plain(html, text === undefined);
      return { subject: oneLine(subject), html: done.html, text: text ?? done.text ?? '' };
    } catch (err) {
      if (err instanceof HtmlLimitError) throw templateProblem([partFault('html', err)]);
      throw err;
    }
  }

  private parse(field: keyof MailParts, source: string): Template[] {
    const key = `${field}\u0000${source}`;
    let templates = this.parsed.get(key);
    if (!templates) {
      templates = (field === 'html' ? this.html : this.plain).parse(source);
      if (this.parsed.size >= PARSED_CACHE_MAX) this.parsed.clear();
      this.parsed.set(key, templates);
    }
    return templates;
  }
}

/** The first path segment the schema does not declare, as `name` or `order.total`; undefined if all are known. */
function unknownVariable(segments: unknown[], variables: VariablesSchema): string | undefined {
  const names = segments.filter((s): s is string => typeof s === 'string');
  if (names.length === 0 || names[0] === SITE_VARIABLE) return undefined;
  let schema: Record<string, unknown> | undefined = {
    type: 'object',
    properties: variables.properties,
    additionalProperties: variables.additionalProperties,
  };
  const path: string[] = [];
  for (const name of names) {
    path.push(name);
    if (!schema) return undefined;
    if (name === 'size' && (schema.type === 'array' || schema.type === 'string')) return undefined;
    if (schema.type === 'array') {
      schema = schema.items as Record<string, unknown> | undefined;
      // Liquid's `list.first`, `list.last`: an element.
      if (name === 'first' || name === 'last') continue;
    }
    if (!schema) return undefined;
    const properties = schema?.properties as Record<string, Record<string, unknown>> | undefined;
    if (!properties) return undefined; // free-form below this point
    // A type that takes extra variables (`custom`: additionalProperties true) lets a template read them.
    if (!(name in properties)) return schema.additionalProperties === true ? undefined : `\`${path.join('.')}\``;
    schema = properties[name];
  }
  return undefined;
}

/** Headers are one line: a variable with a line break cannot add a header. */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').trim();
}
