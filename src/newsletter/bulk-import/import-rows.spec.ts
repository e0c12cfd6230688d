import { columnsError, csvRow, jsonRow, mapHeader } from './import-rows';

describe('import rows', () => {
  it('maps usual headers, a mapping, and refuses a file without exactly one address column', () => {
    const m = mapHeader(['E-mail', 'Name', 'Plan', ''], {});
    expect(m).toEqual({
      targets: [{ kind: 'email' }, { kind: 'name' }, { kind: 'attribute', key: 'Plan' }, { kind: 'skip' }],
    });
    expect(mapHeader(['Adresse', 'Nom', 'Notes'], { Adresse: 'email', Nom: 'name', Notes: '-' })).toEqual({
      targets: [{ kind: 'email' }, { kind: 'name' }, { kind: 'skip' }],
    });
    expect(mapHeader(['Plan'], {})).toEqual({ error: 'no column holds the email address' });
    expect(mapHeader(['email', 'mail'], {})).toEqual({ error: 'several columns hold the email address' });
  });

  it('checks a columns mapping', () => {
    expect(columnsError({ A: 'email', B: 'attributes.plan', C: '-' })).toBeNull();
    expect(columnsError({ A: 'phone' })).toBe('"A" must map to email, name, attributes.<key> or -');
    expect(columnsError([])).toBe('must be a JSON object');
  });

  it('turns records into rows or reasons', () => {
    const { targets } = mapHeader(['email', 'name', 'plan'], {}) as { targets: never };
    expect(csvRow(2, [' Ada@Example.com ', 'Ada', 'pro'], targets)).toEqual({
      rowNo: 2,
      email: 'ada@example.com',
      name: 'Ada',
      attributes: '{"plan":"pro"}',
    });
    expect(csvRow(5, ['c@example.com', '', ''], targets)).toEqual({
      rowNo: 5,
      email: 'c@example.com',
      name: '',
      attributes: '{}',
    });
    expect(csvRow(3, ['nope', '', ''], targets)).toEqual({ reason: 'email: must be an email address' });
    expect(csvRow(4, ['', '', ''], targets)).toEqual({ reason: 'email: is required' });
    expect(jsonRow(1, { email: 'b@example.com', attributes: { x: 1 } })).toEqual(
      expect.objectContaining({ rowNo: 1, email: 'b@example.com', name: '', attributes: '{"x":1}' }),
    );
    expect(jsonRow(2, { email: 'b@example.com', phone: '1' })).toEqual({ reason: 'phone: is not allowed' });
    expect(jsonRow(3, 'b@example.com')).toEqual({ reason: 'must be an object' });
  });
});
