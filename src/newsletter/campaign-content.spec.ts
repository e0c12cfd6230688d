import { decodeAttribute, extractLinks, mergeLinks, rewriteLinks, withPixel } from './campaign-content';

describe('campaign content', () => {
  const html =
    '<p><a href="https://a.example/x?y=1&amp;z=2">A</a> <a class="b" href=\'http://b.example\'>B</a> ' +
    '<a href="mailto:x@example.com">M</a> <a href="https://a.example/x?y=1&amp;z=2">A again</a> ' +
    '<a href="https://c.example/{{ subscriber.email }}">C</a> <a href="#top">T</a></p>';

  it('extracts each absolute, non-personal link once, in order', () => {
    expect(extractLinks(html)).toEqual(['https://a.example/x?y=1&amp;z=2', 'http://b.example']);
    expect(decodeAttribute('https://a.example/x?y=1&amp;z=2')).toBe('https://a.example/x?y=1&z=2');
  });

  it('appends new links and never renumbers known ones', () => {
    expect(mergeLinks(['http://b.example'], html)).toEqual(['http://b.example', 'https://a.example/x?y=1&amp;z=2']);
  });

  it('rewrites known links and leaves the others', () => {
    const out = rewriteLinks(
      html,
      new Map([
        ['https://a.example/x?y=1&amp;z=2', 0],
        ['http://b.example', 1],
      ]),
      (i) => `https://t.example/k/${i}?a=1&b=2`,
    );
    expect(out).toContain('<a href="https://t.example/k/0?a=1&amp;b=2">A</a>');
    expect(out).toContain('<a class="b" href=\'https://t.example/k/1?a=1&amp;b=2\'>B</a>');
    expect(out).toContain('href="mailto:x@example.com"');
    expect(out).toContain('https://c.example/{{ subscriber.email }}');
    expect(out.match(/t\.example\/k\/0/g)).toHaveLength(2);
  });

  it('puts the pixel before </body>, or at the end', () => {
    expect(withPixel('<body><p>x</p></body>', 'https://t/o')).toMatch(
      /<p>x<\/p><img src="https:\/\/t\/o"[^>]*><\/body>/,
    );
    expect(withPixel('<p>x</p>', 'https://t/o')).toMatch(/^<p>x<\/p><img /);
  });
});
