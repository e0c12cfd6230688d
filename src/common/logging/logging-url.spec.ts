import { loggableUrl } from './logging';

describe('loggableUrl', () => {
  it('redacts path parameters whose names say they carry a credential', () => {
    expect(
      loggableUrl('/api/v2/sites/demo/newsletter/confirm/c.1.abc', '/api/v2/sites/:siteName/newsletter/confirm/:token'),
    ).toBe('/api/v2/sites/demo/newsletter/confirm/[redacted]');
    expect(loggableUrl('/api/v2/sites/demo/content/12', '/api/v2/sites/:siteName/content/:id')).toBe(
      '/api/v2/sites/demo/content/12',
    );
  });

  it('redacts query values named like credentials and keeps the rest', () => {
    expect(loggableUrl('/x/unsubscribe?token=m.1.a&listId=3&api_key=k&Code=1', '/x/unsubscribe')).toBe(
      '/x/unsubscribe?token=[redacted]&listId=3&api_key=[redacted]&Code=[redacted]',
    );
    expect(loggableUrl('/x?%74oken=abc&flag', 'unmatched')).toBe('/x?%74oken=[redacted]&flag');
    expect(loggableUrl('/x?%E0%A4%A=1', 'unmatched')).toBe('/x?%E0%A4%A=1');
  });
});
