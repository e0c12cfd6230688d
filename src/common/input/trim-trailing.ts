/**
 * `text` without its trailing run of `char`. A loop, not `replace(/x+$/, '')`: an unanchored
 * `x+$` retries from every position of a long run that is not at the end (`'/'.repeat(n) + 'a'`)
 * and takes quadratic time (docs/security.md, "Regular expressions").
 */
export function trimTrailing(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end--;
  return end === text.length ? text : text.slice(0, end);
}
