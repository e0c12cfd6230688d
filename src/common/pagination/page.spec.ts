import { decodeCursor } from './cursor';
import { keysetPage, mapPage } from './page';

describe('keysetPage', () => {
  const rows = [{ id: 5 }, { id: 4 }, { id: 3 }];

  it('cuts the extra row and points the cursor at the last row shown', () => {
    const page = keysetPage(rows, 2, (r) => [r.id]);
    expect(page.data).toEqual([{ id: 5 }, { id: 4 }]);
    expect(decodeCursor(page.pagination.nextCursor!, ['number'])).toEqual([4]);
  });

  it('has no next cursor on the last page', () => {
    expect(keysetPage(rows, 3, (r) => [r.id]).pagination).toEqual({ limit: 3, nextCursor: null });
  });
});

describe('mapPage', () => {
  it('maps each row and keeps the pagination', () => {
    const page = keysetPage([{ id: 1 }, { id: 2 }], 5, (r) => [r.id]);
    expect(mapPage(page, (r) => ({ ref: `#${r.id}` }))).toEqual({
      data: [{ ref: '#1' }, { ref: '#2' }],
      pagination: { limit: 5, nextCursor: null },
    });
  });

  it('maps a page served again (the same object) only once per mapper', () => {
    const page = keysetPage([{ id: 1 }], 5, (r) => [r.id]);
    const map = jest.fn((r: { id: number }) => ({ ref: r.id }));
    const other = jest.fn((r: { id: number }) => ({ other: r.id }));
    const first = mapPage(page, map);
    expect(mapPage(page, map)).toBe(first);
    expect(map).toHaveBeenCalledTimes(1);
    expect(mapPage(page, other)).toEqual({ data: [{ other: 1 }], pagination: page.pagination });
    expect(mapPage({ ...page }, map)).not.toBe(first);
    expect(map).toHaveBeenCalledTimes(2);
  });
});
