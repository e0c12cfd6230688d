import { contentDisposition, parseRange } from './file-serving';

describe('file serving', () => {
  it.each([
    [undefined, null],
    ['bytes=0-9', { start: 0, end: 9 }],
    ['bytes=90-', { start: 90, end: 99 }],
    ['bytes=-10', { start: 90, end: 99 }],
    ['bytes=-500', { start: 0, end: 99 }],
    ['bytes=50-5000', { start: 50, end: 99 }],
    ['bytes=100-', 'unsatisfiable'],
    ['bytes=9-3', 'unsatisfiable'],
    ['bytes=-0', 'unsatisfiable'],
    ['bytes=0-1,5-6', null],
    ['items=0-1', null],
    ['bytes=-', null],
  ])('Range %j of 100 bytes -> %j', (header, expected) => {
    expect(parseRange(header, 100)).toEqual(expected);
  });

  it('writes Content-Disposition with an ASCII fallback and the UTF-8 name', () => {
    expect(contentDisposition('inline', 'photo.png')).toBe('inline; filename="photo.png"');
    expect(contentDisposition('attachment', 'Straße "1".svg')).toBe(
      `attachment; filename="Stra_e _1_.svg"; filename*=UTF-8''Stra%C3%9Fe%20%221%22.svg`,
    );
  });
});
