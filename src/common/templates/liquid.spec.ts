import * as fs from 'node:fs';
import {
  FORBIDDEN_TAGS,
  liquidEngine,
  renderBounded,
  TEMPLATE_BUDGET,
  TEMPLATE_MAX_ARRAY,
  templateFault,
} from './liquid';

/** Every way a template can name a file or a partial. */
export const FILE_NAMING_TEMPLATES = [
  "{% include '.env' %}",
  '{% include ".env" %}',
  "{% assign f = '.e' | append: 'nv' %}{% include f %}",
  "{% render '.env' %}",
  "{% render 'x' with subscriber as s %}",
  "{% render 'x' for items as item %}",
  "{% layout '.env' %}{% block b %}x{% endblock %}",
  "{% include '.env' with subscriber %}",
  "{% include '.env' for items %}",
  "{% include '/etc/passwd' %}",
  "{% include '../../.env' %}",
  "{%- include '.git/config' -%}",
  "{% liquid\n  assign a = 1\n  include '.env'\n%}",
  "{% liquid render '.env' %}",
  "{% if true %}{% for i in (1..2) %}{% include '.env' %}{% endfor %}{% endif %}",
  '{% include .env %}',
];

describe('the Liquid sandbox', () => {
  const html = liquidEngine('html');
  const text = liquidEngine('text');

  it('is one engine per flavour, built with no file system and the budget', () => {
    expect(liquidEngine('html')).toBe(html);
    expect(html.options.fs.readFileSync).not.toBe(fs.readFileSync);
    expect(html.options).toEqual(
      expect.objectContaining({ root: [], partials: [], layouts: [], relativeReference: false, ...TEMPLATE_BUDGET }),
    );
  });

  it.each(FILE_NAMING_TEMPLATES)('refuses %j when it is parsed, naming the tag', (source) => {
    for (const engine of [html, text]) {
      let caught: unknown;
      try {
        engine.parse(source);
      } catch (err) {
        caught = err;
      }
      const fault = templateFault(caught);
      expect(fault.kind).toBe('forbidden');
      expect(fault.message).toMatch(/uses the `(include|render|layout)` tag/);
      expect(fault.message).toMatch(/^line \d+, col \d+: /);
    }
  });

  it('reads no file even through the engine file API (defence in depth)', () => {
    // package.json exists in the cwd, as .env does on a server: nothing of it comes back.
    const marker = JSON.stringify(fs.readFileSync('package.json', 'utf8')).slice(1, 40);
    for (const name of ['package.json', './package.json', '../package.json', `${process.cwd()}/package.json`]) {
      const err = catching(() => html.renderFileSync(name, {}));
      expect(String(err)).toMatch(/ENOENT|cannot read files/);
      expect(String(err)).not.toContain(marker);
      expect(() => html.options.fs.readFileSync(name)).toThrow('templates cannot read files');
      expect(html.options.fs.existsSync(name)).toBe(false);
    }
  });

  it('refuses the tags in every engine, whatever was registered before', () => {
    for (const tag of FORBIDDEN_TAGS) expect(() => text.parse(`{% ${tag} 'a' %}`)).toThrow(/not|cannot/);
  });

  it('stops a runaway loop at the render budget, sync or async', async () => {
    const loop = html.parse('{% for i in (1..100000) %}{% for j in (1..100000) %}x{% endfor %}{% endfor %}');
    const t0 = performance.now();
    let caught: unknown;
    try {
      html.renderSync(loop, {});
    } catch (err) {
      caught = err;
    }
    const took = performance.now() - t0;
    expect(templateFault(caught).kind).toBe('limit');
    expect(took).toBeLessThan(TEMPLATE_BUDGET.renderLimit * 20);
    await expect(html.render(loop, {})).rejects.toThrow(/template render limit exceeded/);
  });

  it('stops filters over huge arrays and chained work, and runaway allocation', () => {
    const cases = [
      "{% assign a = (1..20000) %}{{ a | where: 'x' | size }}",
      "{% assign a = (1..20000) %}{{ a | find_index: 'x', 3 }}",
      "{% assign a = (1..9000) %}{{ a | where_exp: 'i', 'a | sum' | size }}",
      "{% assign s = 'ab' %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}",
      "{{ 'x' | split: '' | size }}{% assign a = (1..3000000) %}",
    ];
    for (const source of cases) {
      const t0 = performance.now();
      let caught: unknown;
      try {
        html.parseAndRenderSync(source, {});
      } catch (err) {
        caught = err;
      }
      expect({ source, kind: templateFault(caught).kind }).toEqual({ source, kind: 'limit' });
      expect(performance.now() - t0).toBeLessThan(2000);
    }
    expect(html.parseAndRenderSync(`{% assign a = (1..${TEMPLATE_MAX_ARRAY}) %}{{ a | sum }}`, {})).toBe('50005000');
  });

  it('renders again a render the clock stopped while the process waited, and still refuses a runaway', () => {
    // A variable whose first read blocks the thread without using the CPU, as a descheduled
    // process on a loaded machine: liquidjs's wall clock passes its limit at the next step.
    let naps = 0;
    const waited = {
      get nap(): string {
        if (naps++ === 0)
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, TEMPLATE_BUDGET.renderLimit * 1.5);
        return 'ok';
      },
    };
    const template = html.parse("{{ nap }}-{{ 'done' }}");
    expect(templateFault(catching(() => html.renderSync(template, waited))).kind).toBe('limit');
    naps = 0;
    expect(renderBounded(html, template, waited)).toBe('ok-done');
    expect(naps).toBe(2);

    const runaway = html.parse('{% for i in (1..100000) %}{% for j in (1..100000) %}{{ i }}{% endfor %}{% endfor %}');
    const t0 = performance.now();
    expect(templateFault(catching(() => renderBounded(html, runaway, {}))).kind).toBe('limit');
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('refuses a source over the parse budget', () => {
    expect(templateFault(catching(() => html.parse('x'.repeat(TEMPLATE_BUDGET.parseLimit + 1)))).kind).toBe('limit');
  });

  it('renders ordinary templates as before: escaped HTML, raw opt-out, plain text', () => {
    const data = { name: 'Ada & <Bob>', items: [{ n: 'a' }, { n: 'b' }], body: '<b>hi</b>' };
    expect(html.parseAndRenderSync('{{ name }} {{ body | raw }} {% for i in items %}{{ i.n }}{% endfor %}', data)).toBe(
      'Ada &amp; &lt;Bob&gt; <b>hi</b> ab',
    );
    expect(text.parseAndRenderSync('{{ name | upcase }}', data)).toBe('ADA & <BOB>');
    expect(templateFault(catching(() => html.parse('{{ x | nope }}'))).kind).toBe('syntax');
  });
});

function catching(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}
