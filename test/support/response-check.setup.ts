import { resolve } from 'node:path';
import { takeViolations, writeCounts } from './response-check-store';
import { scaled } from './time-scale';

/*
 * Every time limit (`it(name, fn, ms)`, hooks, `jest.setTimeout`, and jest's default of 30 s)
 * is scaled by TEST_TIME_SCALE (time-scale.ts). The default is scaled here, not in jest.config.js:
 * the config is part of the key of jest's transform cache, which must not change with the load.
 */
type Timed = (name: unknown, fn?: unknown, timeout?: number) => unknown;
const scaleLast = <T extends Timed>(original: T): T =>
  Object.assign(
    ((a: unknown, b?: unknown, c?: number) => original(a, b, c === undefined ? undefined : scaled(c))) as T,
    original,
  );
const hooks = globalThis as unknown as Record<string, (fn: unknown, timeout?: number) => unknown>;
for (const name of ['beforeAll', 'beforeEach', 'afterAll', 'afterEach']) {
  const original = hooks[name];
  hooks[name] = (fn, timeout) => original(fn, timeout === undefined ? undefined : scaled(timeout));
}
globalThis.it = scaleLast(globalThis.it as unknown as Timed) as unknown as typeof it;
globalThis.test = globalThis.it;
const setTimeoutOfJest = jest.setTimeout.bind(jest);
jest.setTimeout = (ms: number) => setTimeoutOfJest(scaled(ms));
jest.setTimeout(30000);

/**
 * Every answer of the app a test started (startApp) is checked against the app's own document
 * (response-check.ts); a test whose requests got an answer the document does not allow fails
 * here, with the list.
 */
function failOnViolations(when: string): void {
  const found = takeViolations();
  if (found.length === 0) return;
  const shown = found.slice(0, 20).join('\n\n');
  const more = found.length > 20 ? `\n\n… and ${found.length - 20} more` : '';
  throw new Error(`${found.length} answer(s) ${when} break the OpenAPI document:\n\n${shown}${more}`);
}

afterEach(() => failOnViolations('of this test'));

afterAll(() => {
  writeCounts(resolve(__dirname, '../..'));
  failOnViolations('after the last test (afterAll hooks)');
});
