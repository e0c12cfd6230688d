import { trimTrailing } from './trim-trailing';

describe('trimTrailing', () => {
  it.each([
    ['https://x.example///', '/', 'https://x.example'],
    ['https://x.example', '/', 'https://x.example'],
    ['///', '/', ''],
    ['', '/', ''],
    ['a-b--', '-', 'a-b'],
    ['1.2500000000', '0', '1.25'],
    ['/a/', '-', '/a/'],
  ])('trimTrailing(%j, %j) is %j', (text, char, expected) => {
    expect(trimTrailing(text, char)).toBe(expected);
  });

  it('is linear on a long run that is not at the end', () => {
    const text = `${'/'.repeat(200_000)}a/`;
    const started = process.hrtime.bigint();
    expect(trimTrailing(text, '/')).toBe(text.slice(0, -1));
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(50);
  });
});
