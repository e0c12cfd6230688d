import { resolve } from 'node:path';
import { takeViolations, writeCounts } from './response-check-store';

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
