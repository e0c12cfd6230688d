import type { FilterImplOptions, FS, TagToken, Template, TopLevelToken } from 'liquidjs';
import { Liquid, Tag } from 'liquidjs';
import { BadRequestProblem, FieldError, Problem, ValidationProblem } from '../errors/problems';

/**
 * Every Liquid engine of Sitebase is made here (docs/email.md, "The template sandbox"): tenants
 * write the templates, so an engine can name no file, and a render is bounded in input size,
 * time and memory.
 */

/**
 * The budget of one template (liquidjs's own limits, per parse and per render call, sync or not):
 * - `parseLimit`: characters of source a parse takes, the body limit (1 MiB), so any template a
 *   request can carry is parsed, and nothing bigger is ever tried;
 * - `renderLimit`: milliseconds one render may run; the templates Sitebase sends render in well
 *   under 1 ms, a runaway loop is stopped after this. liquidjs counts wall-clock time, so a render
 *   that used little of it on the CPU (a loaded machine descheduled the process) is tried again
 *   (`renderBounded`): a render is refused for what it computed, not for how long it waited;
 * - `memoryLimit`: what one render may allocate, as liquidjs counts it (characters of escaped output
 *   and of filter results, elements of ranges and arrays it makes): 2 M, twice the body limit,
 *   so any variable a request can carry can be output escaped.
 */
export const TEMPLATE_BUDGET = { parseLimit: 1_048_576, renderLimit: 100, memoryLimit: 2_000_000 } as const;

/**
 * Arrays longer than this are refused by every filter: one filter over an array runs without a
 * time check (`where`, `find_index`, `group_by` cost 3-7 µs an element), so its input is bounded.
 */
export const TEMPLATE_MAX_ARRAY = 10_000;

/** Tags that read other templates (files): Sitebase keeps no partials or layouts. */
export const FORBIDDEN_TAGS = ['include', 'render', 'layout'] as const;

export type TemplateFlavour = 'html' | 'text';

/** A parse that met a tag of FORBIDDEN_TAGS. */
export class ForbiddenTagError extends Error {
  constructor(readonly tag: string) {
    super(`uses the \`${tag}\` tag, which templates cannot use: Sitebase keeps no partials, layouts or files`);
    this.name = 'ForbiddenTagError';
  }
}

/**
 * A render or parse beyond TEMPLATE_BUDGET or TEMPLATE_MAX_ARRAY; `html`: HTML beyond the shape
 * limits of common/html/html-shape.ts (HtmlLimitError), its message naming the limit.
 */
export class TemplateLimitError extends Error {
  readonly html: boolean = false;
  constructor(message: string) {
    super(message);
    this.name = 'TemplateLimitError';
  }
}

/** Refuses the tag when the template is parsed (also inside `{% liquid %}`), whatever its argument. */
class RefusedTag extends Tag {
  constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: Liquid) {
    super(token, remainTokens, liquid);
    throw new ForbiddenTagError(token.name);
  }
  // eslint-disable-next-line require-yield -- never reached: the constructor throws
  *render(): Generator<unknown, void, unknown> {
    throw new ForbiddenTagError(this.name);
  }
}

const NO_FILE = () => new Error('templates cannot read files');
/**
 * The engine's file system: none. Even a lookup that got past the parse check (it cannot) finds
 * nothing and reads nothing; liquidjs's default is the process's file system from its cwd.
 */
export const NO_FILES: FS = {
  exists: () => Promise.resolve(false),
  existsSync: () => false,
  readFile: () => Promise.reject(NO_FILE()),
  readFileSync: () => {
    throw NO_FILE();
  },
  resolve: (_dir: string, file: string) => file,
  contains: () => Promise.resolve(false),
  containsSync: () => false,
  fallback: () => undefined,
  sep: '/',
  dirname: () => '',
};

type FilterHandler = Extract<FilterImplOptions, (...args: never[]) => unknown>;

/** Checks the render's time before a filter runs, and refuses an array input or argument beyond TEMPLATE_MAX_ARRAY. */
function bounded(handler: FilterHandler): FilterHandler {
  return function (value: unknown, ...args: unknown[]): unknown {
    this.context.renderLimit.check(performance.now());
    for (const v of [value, ...args])
      if (Array.isArray(v) && v.length > TEMPLATE_MAX_ARRAY)
        throw new TemplateLimitError(`array limit exceeded (${TEMPLATE_MAX_ARRAY} elements)`);
    return handler.call(this, value, ...args);
  };
}

const engines = new Map<TemplateFlavour, Liquid>();

/**
 * The shared engine of a flavour: `html` escapes every output (`| raw` opts out), `text` does
 * not. Engines hold no per-template state; callers cache parsed templates.
 */
export function liquidEngine(flavour: TemplateFlavour): Liquid {
  let engine = engines.get(flavour);
  if (!engine) {
    engine = new Liquid({
      ...(flavour === 'html' ? { outputEscape: 'escape' as const } : {}),
      strictFilters: true,
      ownPropertyOnly: true,
      fs: NO_FILES,
      root: [],
      partials: [],
      layouts: [],
      relativeReference: false,
      dynamicPartials: false,
      ...TEMPLATE_BUDGET,
    });
    for (const tag of FORBIDDEN_TAGS) engine.registerTag(tag, RefusedTag);
    for (const [name, filter] of Object.entries(engine.filters)) {
      const options: FilterImplOptions =
        typeof filter === 'function' ? bounded(filter) : { ...filter, handler: bounded(filter.handler) };
      engine.registerFilter(name, options);
    }
    engines.set(flavour, engine);
  }
  return engine;
}

/** Renders a render-time limit stops after: one that used less CPU than this share of it is tried again. */
const CPU_SHARE_OF_A_RUNAWAY = 0.5;
/** Renders of one template at most: a runaway on a machine too loaded to show its CPU is still refused. */
const RENDER_ATTEMPTS = 3;

/**
 * `engine.renderSync` within TEMPLATE_BUDGET, every render of a tenant's template goes through
 * here. liquidjs stops a render after `renderLimit` ms of wall-clock time; when it does, the CPU
 * time the process used meanwhile tells a runaway template (it computed: refused) from an ordinary
 * one on a loaded machine (it waited: rendered again, at most RENDER_ATTEMPTS times). Rendering
 * has no side effects, so a second render is the same render.
 */
export function renderBounded(engine: Liquid, template: Template[], data: object): unknown {
  for (let attempt = 1; ; attempt++) {
    const cpu = cpuClock();
    try {
      return engine.renderSync(template, data);
    } catch (err) {
      if (attempt >= RENDER_ATTEMPTS || !isRenderTimeLimit(err)) throw err;
      const used = cpuClock(cpu);
      if ((used.user + used.system) / 1000 >= TEMPLATE_BUDGET.renderLimit * CPU_SHARE_OF_A_RUNAWAY) throw err;
    }
  }
}

/**
 * This thread's CPU time (Node ≥ 22.19), else the process's: other threads (a worker, the GC's
 * helpers) then count too, which can only refuse a render the thread clock would have retried.
 */
const cpuClock: (since?: NodeJS.CpuUsage) => NodeJS.CpuUsage =
  typeof (process as { threadCpuUsage?: unknown }).threadCpuUsage === 'function'
    ? (since) => (process as unknown as { threadCpuUsage(s?: NodeJS.CpuUsage): NodeJS.CpuUsage }).threadCpuUsage(since)
    : (since) => process.cpuUsage(since);

function isRenderTimeLimit(err: unknown): boolean {
  let cause: unknown = err;
  while (cause instanceof Error) {
    if (cause.message === 'template render limit exceeded') return true;
    cause = (cause as { originalError?: unknown }).originalError;
  }
  return false;
}

/** What went wrong with a template, for a problem. */
export interface TemplateFault {
  kind: 'syntax' | 'forbidden' | 'limit';
  /** A limit of the HTML's shape (html-shape.ts), not of the Liquid budget. */
  html?: boolean;
  /** `line 3, col 7: output "{{ x" not closed`, without liquidjs's source excerpt. */
  message: string;
}

const LIQUID_LIMITS = /^(parse length|template render|memory alloc) limit exceeded$/;

export function templateFault(err: unknown): TemplateFault {
  let cause: unknown = err;
  while (cause instanceof Error && (cause as { originalError?: unknown }).originalError instanceof Error)
    cause = (cause as { originalError?: unknown }).originalError;
  const kind =
    cause instanceof ForbiddenTagError
      ? 'forbidden'
      : cause instanceof TemplateLimitError || (cause instanceof Error && LIQUID_LIMITS.test(cause.message))
        ? 'limit'
        : 'syntax';
  return { kind, message: faultMessage(err), html: cause instanceof TemplateLimitError && cause.html };
}

function faultMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const first = message.split('\n')[0];
  const at = /, line:(\d+), col:(\d+)/.exec(first);
  const bare = first
    .replace(/, line:\d+, col:\d+/, '')
    .replace(/, file:[^,]*/, '')
    .replace(/^[A-Za-z]+Error: /, '');
  return at ? `line ${at[1]}, col ${at[2]}: ${bare}` : bare;
}

/** One part's fault as a field error, and whether it was a budget one (`html`: a limit of the HTML's shape). */
export interface PartFault extends FieldError {
  limit: boolean;
  html?: boolean;
}

export function partFault(path: string, err: unknown, prefix = ''): PartFault {
  const fault = templateFault(err);
  return { path, message: `${prefix}${fault.message}`, limit: fault.kind === 'limit', html: fault.html };
}

/**
 * The problem for some parts' faults: a template over its budget is a 400
 * `template_limit_exceeded` (naming the parts), anything else a 400 `validation_failed`.
 */
export function templateProblem(faults: PartFault[]): BadRequestProblem | ValidationProblem {
  const errors = faults.map(({ path, message }) => ({ path, message }));
  const html = faults.find((f) => f.limit && f.html);
  if (html && !faults.some((f) => f.limit && !f.html))
    return new BadRequestProblem(
      'template_limit_exceeded',
      `The HTML of \`${html.path}\` ${html.message}; make it simpler`,
      errors,
    );
  if (faults.some((f) => f.limit))
    return new BadRequestProblem(
      'template_limit_exceeded',
      `The template exceeds its budget (${TEMPLATE_BUDGET.renderLimit} ms, ` +
        `${TEMPLATE_BUDGET.memoryLimit.toLocaleString('en')} characters or elements, arrays of ` +
        `${TEMPLATE_MAX_ARRAY.toLocaleString('en')}); make it simpler`,
      errors,
    );
  return new ValidationProblem(errors);
}

/**
 * The problem of a render that failed: over the budget or naming a file, the part's fault
 * (`templateProblem`); anything else a 400 `template_render_failed` saying what could not be
 * rendered (`what`: "The campaign", "The template").
 */
export function renderProblem(err: unknown, part: string, what: string): Problem {
  if (err instanceof Problem) return err;
  const fault = templateFault(err);
  if (fault.kind !== 'syntax') return templateProblem([partFault(part, err)]);
  return new BadRequestProblem('template_render_failed', `${what} could not be rendered: ${fault.message}`);
}
