import { CSS_LIMITS, HTML_LIMITS, HtmlLimitError, checkHtmlShape, countSelectors } from './html-shape';
import { MailHtml } from './mail-html';

/** `rules` CSS rules and `elements` paragraphs using them, in a document (the shape of issue 42's flood). */
function flood(rules: number, elements: number): string {
  let css = '';
  for (let i = 0; i < rules; i++) css += `.c${i}{color:red}`;
  let body = '';
  for (let i = 0; i < elements; i++) body += `<p class="c${i % rules}">x</p>`;
  return `<html><head><style>${css}</style></head><body>${body}</body></html>`;
}

describe('html shape', () => {
  it('counts selectors of rules, not of at-rules or declarations', () => {
    expect(countSelectors('a, b { color: red } /* x { } */ @media (max-width: 600px) { .c { color: blue } }')).toBe(3);
    expect(countSelectors('p{x:y;z:w}div>p{}')).toBe(2);
  });

  it('stops at the nesting limit without parsing the rest', () => {
    const started = performance.now();
    expect(() => checkHtmlShape('<b>'.repeat(300_000))).toThrow(HtmlLimitError);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(checkHtmlShape('<div>'.repeat(HTML_LIMITS.depth)).depth).toBe(HTML_LIMITS.depth);
  });

  it('counts elements (implied closes and void elements included) and top-level nodes', () => {
    const shape = checkHtmlShape('<p>a<p>b<br><img src=x>text<style>p{}</style>');
    expect(shape).toMatchObject({ elements: 5, depth: 2, style: 'p{}' });
    expect(() => checkHtmlShape('<i></i>'.repeat(HTML_LIMITS.elements + 1))).toThrow(/elements \(at most 50,000\)/);
  });
});

describe('MailHtml', () => {
  const html = new MailHtml();
  afterAll(() => html.onModuleDestroy());

  it('inlines a source once, in a worker, and keeps fragments with many top-level nodes as they were', async () => {
    const source = '<style>p.lead { color: #123456; }</style>' + '<p class="lead">{{ name }}</p>'.repeat(100);
    const inlined = await html.inlineSource(source);
    expect(inlined).toBe('<p class="lead" style="color: #123456;">{{ name }}</p>'.repeat(100));
    expect(await html.inlineSource(source)).toBe(inlined);
  });

  it('refuses the flood of issue 42 by its shape, before juice runs', async () => {
    await expect(html.plain(flood(5000, 10_000), true)).rejects.toThrow(/5,000 CSS selectors \(at most 2,000\)/);
    await expect(html.plain(flood(1000, 10_000), true)).rejects.toThrow(
      `1,000 CSS selectors and 10,004 elements, 10,004,000 pairs to match when inlining (at most ${CSS_LIMITS.pairs.toLocaleString('en')})`,
    );
  });

  it('ends a task over its budget and answers HtmlLimitError; the next task gets a fresh thread', async () => {
    const slow = new MailHtml();
    slow.budgetMs = 50;
    try {
      await expect(slow.plain(flood(1000, 3000), true)).rejects.toThrow(/takes more than 0.05 s/);
      slow.budgetMs = 60_000;
      expect((await slow.plain('<style>p{color:red}</style><p>x</p>', true)).html).toBe('<p style="color: red;">x</p>');
    } finally {
      await slow.onModuleDestroy();
    }
  });
});
