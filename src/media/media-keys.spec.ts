import { defaultTitle, fileSlug, isStorageKey, newStorageKey, safeFileName, thumbnailKey } from './media-keys';

describe('media keys', () => {
  it.each([
    ['Holiday Photo (1).JPG', 'holiday-photo-1'],
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\windows\\win.ini', 'win'],
    ['my_file.v2.png', 'my-file-v2'],
    ['Straße Ärger.png', 'strasse-arger'],
    ['日本語.png', 'file'],
    ['', 'file'],
    ['.htaccess', 'file'],
    [`${'a'.repeat(100)}.png`, 'a'.repeat(60)],
  ])('slug of %j is %j', (name, slug) => {
    expect(fileSlug(name)).toBe(slug);
  });

  it('generates keys under the site with a random folder and the detected extension', () => {
    const a = newStorageKey(7, '../../etc/passwd', 'png');
    const b = newStorageKey(7, '../../etc/passwd', 'png');
    expect(a).toMatch(/^sites\/7\/[0-9a-f]{20}\/passwd\.png$/);
    expect(a).not.toBe(b);
    expect(isStorageKey(a)).toBe(true);
    expect(thumbnailKey(a, 150, 'jpg')).toBe(a.replace(/\.png$/, '-150w.jpg'));
  });

  it.each([
    ['sites/1/ab/photo.png', true],
    ['sites/1/ab/photo-150w.png', true],
    ['../etc/passwd', false],
    ['sites/1/../x.png', false],
    ['sites//x.png', false],
    ['/sites/1/x.png', false],
    ['.tmp/abc', false],
    ['sites/1/ab/Photo.png', false],
    ['sites/1/ab/photo.png/', false],
    ['sites/1/a b.png', false],
    ['x'.repeat(301), false],
  ])('isStorageKey(%j) is %s', (key, ok) => {
    expect(isStorageKey(key)).toBe(ok);
  });

  it('keeps a display name without folders or control characters', () => {
    expect(safeFileName('../../etc/passwd', 'png')).toBe('passwd');
    expect(safeFileName('C:\\Users\\me\\Photo "1".png', 'png')).toBe('Photo 1.png');
    expect(safeFileName('a\u0000b\r\n.pdf', 'pdf')).toBe('ab.pdf');
    expect(safeFileName('..', 'pdf')).toBe('file.pdf');
    expect(safeFileName(undefined, 'jpg')).toBe('file.jpg');
    expect(safeFileName('x'.repeat(300), 'jpg')).toHaveLength(255);
    expect(defaultTitle('Harbour at dawn.jpeg')).toBe('Harbour at dawn');
    expect(defaultTitle('.env')).toBe('.env');
  });
});
