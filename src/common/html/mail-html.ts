import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { TooManyRequestsProblem } from '../errors/problems';
import { checkHtmlShape, HtmlLimitError } from './html-shape';
import type { MailHtmlResult, MailHtmlTask } from './mail-html-task';
import { HAS_STYLE, textOf, textOfChecked } from './mail-html-task';

/**
 * What one task may take once a worker runs it: the shape limits keep a task of simple CSS
 * under a second; a task still running after this (selectors that cost more per element) is
 * stopped, its thread ended, and the mail refused.
 */
export const HTML_TASK_BUDGET_MS = 5_000;
/** How long a task may wait for a thread (other accounts' tasks are each bounded by the budget); then a 429. */
const QUEUE_WAIT_MS = 60_000;
/** Rendered HTML up to this many characters gets its text part on the event loop (it costs well under a millisecond). */
export const TEXT_ON_LOOP_MAX = 64 * 1024;
/** Characters of inlined sources kept (sources and results): a campaign's batches and a template's sends share one inlining. */
const CACHE_CHARS = 16 * 1024 * 1024;
/** What a worker may allocate before it is ended. */
const WORKER_HEAP_MB = 256;

/** The task module: compiled JavaScript in a build, TypeScript under ts-node or ts-jest (loaded with ts-node). */
const TASK_FILE = join(__dirname, `mail-html-task${__filename.endsWith('.ts') ? '.ts' : '.js'}`);

/**
 * CSS inlining and text parts of tenant HTML, off the event loop (docs/security.md, "Work on
 * tenant input"): a pool of worker threads (piscina) runs mail-html-task.ts, each task within
 * HTML_TASK_BUDGET_MS from when it starts; a task over it has its thread ended and is refused
 * with HtmlLimitError (a 400 `template_limit_exceeded`). The shape limits of html-shape.ts are
 * checked in the worker before juice or html-to-text run.
 */
@Injectable()
export class MailHtml implements OnModuleDestroy {
  private pool: Piscina<MailHtmlTask, MailHtmlResult> | undefined;
  private readonly inlined = new Map<string, string>();
  private cachedChars = 0;
  private readonly pending = new Map<string, Promise<string>>();
  /** HTML_TASK_BUDGET_MS; a unit spec shortens it. */
  budgetMs = HTML_TASK_BUDGET_MS;

  /**
   * A source (a template's HTML, a campaign's content) with its CSS inlined, once per source:
   * the result is cached, and calls for a source being inlined wait for that one.
   */
  inlineSource(source: string): Promise<string> {
    const done = this.inlined.get(source);
    if (done !== undefined) return Promise.resolve(done);
    let running = this.pending.get(source);
    if (!running) {
      running = this.run({ html: source, inline: true, text: false })
        .then(({ html }) => {
          this.remember(source, html);
          return html;
        })
        .finally(() => this.pending.delete(source));
      this.pending.set(source, running);
    }
    return running;
  }

  /**
   * A mail given as is: its CSS inlined, and its text made when `text` asks; in a worker, unless
   * there is no `<style>` and little text to make.
   */
  async plain(html: string, text: boolean): Promise<{ html: string; text?: string }> {
    if (!HAS_STYLE.test(html) && (!text || html.length <= TEXT_ON_LOOP_MAX)) {
      checkHtmlShape(html);
      return text ? { html, text: textOfChecked(html) } : { html };
    }
    return this.run({ html, inline: true, text });
  }

  /**
   * The text part of rendered HTML: on the event loop when it is small, in a worker otherwise;
   * its shape is checked first either way (HtmlLimitError).
   */
  async text(html: string): Promise<string> {
    if (html.length <= TEXT_ON_LOOP_MAX) return textOf(html);
    return (await this.run({ html, inline: false, text: true })).text ?? '';
  }

  async onModuleDestroy(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }

  private remember(source: string, html: string): void {
    const size = source.length + html.length;
    if (size > CACHE_CHARS) return;
    while (this.cachedChars + size > CACHE_CHARS) {
      const [oldest, value] = this.inlined.entries().next().value as [string, string];
      this.inlined.delete(oldest);
      this.cachedChars -= oldest.length + value.length;
    }
    this.inlined.set(source, html);
    this.cachedChars += size;
  }

  private poolOf(): Piscina<MailHtmlTask, MailHtmlResult> {
    this.pool ??= new Piscina<MailHtmlTask, MailHtmlResult>({
      filename: TASK_FILE,
      // One core stays the event loop's.
      maxThreads: Math.max(1, Math.min(4, availableParallelism() - 1)),
      minThreads: 0,
      idleTimeout: 30_000,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      execArgv: TASK_FILE.endsWith('.ts') ? ['--require', 'ts-node/register/transpile-only'] : [],
    });
    return this.pool;
  }

  private async run(task: MailHtmlTask): Promise<{ html: string; text?: string }> {
    const started = new Int32Array(new SharedArrayBuffer(4));
    const abort = new AbortController();
    const queued = performance.now();
    let since: number | undefined;
    let overrun: Error | undefined;
    const watch = setInterval(() => {
      const now = performance.now();
      if (since === undefined && Atomics.load(started, 0) === 1) since = now;
      if (since !== undefined && now - since > this.budgetMs)
        overrun = new HtmlLimitError(
          `takes more than ${this.budgetMs / 1000} s to inline its CSS or make its text (simplify the selectors)`,
        );
      else if (since === undefined && now - queued > QUEUE_WAIT_MS) overrun = new TooManyRequestsProblem(5);
      if (overrun) abort.abort(overrun);
    }, 25);
    watch.unref();
    try {
      const result = await this.poolOf().run({ ...task, started }, { signal: abort.signal });
      if ('limit' in result) throw new HtmlLimitError(result.limit);
      return result;
    } catch (err) {
      if (overrun) throw overrun;
      if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY')
        throw new HtmlLimitError(`needs more than ${WORKER_HEAP_MB} MB to inline its CSS or make its text`);
      throw err;
    } finally {
      clearInterval(watch);
    }
  }
}
