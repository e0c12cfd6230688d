import { createHash } from 'node:crypto';
import { escapeHtml, messagePage, PAGE_CSP, preferencesPage } from './pages';

describe('newsletter pages', () => {
  it('escapes every value and runs no script', () => {
    const html = preferencesPage({
      siteTitle: '<Demo & "Co">',
      email: 'a<b>@example.com',
      token: 'm.1.x"y.z',
      action: '/api/v2/sites/demo/newsletter/unsubscribe',
      lists: [{ id: 3, name: '<script>alert(1)</script>', status: 'active' }],
    });
    expect(html).not.toContain('<script');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('&#60;Demo &#38; &#34;Co&#34;&#62;');
    expect(html).toContain('value="m.1.x&#34;y.z"');
    expect(escapeHtml(`'`)).toBe('&#39;');
  });

  it('allows its one style by hash, and forms only to this origin', () => {
    const html = messagePage({ siteTitle: 'Demo', title: 'Done', message: 'ok' });
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1];
    const hash = createHash('sha256').update(style).digest('base64');
    expect(PAGE_CSP).toBe(
      `default-src 'none'; style-src 'sha256-${hash}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    );
  });

  it('offers Leave for the lists the person is on, and Leave all only when there is one', () => {
    const base = { siteTitle: 'Demo', email: 'a@example.com', token: 't', action: '/u' };
    const on = preferencesPage({
      ...base,
      lists: [
        { id: 1, name: 'Weekly', status: 'active' },
        { id: 2, name: 'Daily', status: 'unsubscribed' },
      ],
    });
    expect(on.match(/name="listId"/g)).toHaveLength(1);
    expect(on).toContain('value="1"');
    expect(on).toContain('Unsubscribe from all');
    const off = preferencesPage({ ...base, lists: [{ id: 2, name: 'Daily', status: 'unsubscribed' }] });
    expect(off).not.toContain('Unsubscribe from all');
  });
});
