import { versionEtag, ifMatchAllows } from './etag';

describe('content ETags', () => {
  const etag = versionEtag(12, 3);

  it('is a quoted strong tag of id and version', () => {
    expect(etag).toBe('"12-3"');
  });

  it.each([
    [undefined, true],
    ['"12-3"', true],
    ['*', true],
    ['"12-2", "12-3"', true],
    ['"12-2"', false],
    ['W/"12-3"', false],
    ['12-3', false],
    ['', false],
  ])('If-Match %p -> %p', (header, expected) => {
    expect(ifMatchAllows(header, etag)).toBe(expected);
  });
});
