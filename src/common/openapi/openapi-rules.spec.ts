import { declareSchemaRule, schemaRuleOf } from './openapi-rules';

describe('schemaRuleOf', () => {
  it("gives class-validator's rules their keywords", () => {
    expect(schemaRuleOf('isInt', [])).toEqual({ schema: { type: 'integer' } });
    expect(schemaRuleOf('isNotEmpty', [])).toEqual({ schema: { minLength: 1 } });
    expect(schemaRuleOf('maxLength', [200])).toEqual({ schema: { maxLength: 200 } });
    expect(schemaRuleOf('isIn', [['a', 'b']])).toEqual({ schema: { enum: ['a', 'b'] } });
    expect(schemaRuleOf('isEmail', [])).toEqual({ schema: { format: 'email' } });
    expect(schemaRuleOf('arrayUnique', [])).toEqual({ schema: { uniqueItems: true } });
  });

  it('writes a Matches as its ECMA-262 source, and describes one with flags instead of stating a stricter pattern', () => {
    expect(schemaRuleOf('matches', [/^[a-z]+$/, undefined])).toEqual({ schema: { pattern: '^[a-z]+$' } });
    expect(schemaRuleOf('matches', [/^[a-z]+$/i, undefined])).toEqual({ described: 'Matches `/^[a-z]+$/i`.' });
    expect(schemaRuleOf('matches', ['^[a-z]+$', 'i'])).toEqual({ described: 'Matches `/^[a-z]+$/i`.' });
  });

  it('gives date strings (IsDateString, IsISO8601) format date-time', () => {
    expect(schemaRuleOf('isDateString', [])).toEqual({ schema: { type: 'string', format: 'date-time' } });
    expect(schemaRuleOf('isISO8601', [])).toEqual({ schema: { type: 'string', format: 'date-time' } });
  });

  it('describes date bounds, which no 3.0 keyword carries; one computed at each request is checked against the time', () => {
    expect(schemaRuleOf('minDate', [() => new Date()])).toEqual({
      described: 'Not before the time of the request.',
      checked: 'time',
    });
    const fixed = new Date('2020-01-01T00:00:00.000Z');
    expect(schemaRuleOf('maxDate', [fixed])).toEqual({ described: 'Not after 2020-01-01T00:00:00.000Z.' });
  });

  it('knows a custom rule only once it is declared, and refuses to redeclare a built-in one', () => {
    expect(schemaRuleOf('isTestOnlyRule', [])).toBeUndefined();
    declareSchemaRule('isTestOnlyRule', ([n]) => ({ schema: { maxItems: n as number }, described: 'Test.' }));
    expect(schemaRuleOf('isTestOnlyRule', [3])).toEqual({ schema: { maxItems: 3 }, described: 'Test.' });
    expect(() => declareSchemaRule('isInt', {})).toThrow(/class-validator's own rule/);
  });
});
