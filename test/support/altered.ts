/**
 * `text` with its character `fromEnd` places from the end replaced by a different one of the
 * same base64url alphabet: always another spelling. Overwriting the tail with fixed text is not
 * (a 16-byte signature ends in one of four letters, and 1 run in 256 it already ended in "AA").
 */
export function altered(text: string, fromEnd = 1): string {
  const at = text.length - fromEnd;
  const swap = text[at] === 'A' ? 'B' : 'A';
  return text.slice(0, at) + swap + text.slice(at + 1);
}
