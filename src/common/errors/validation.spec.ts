import { ValidationError } from '@nestjs/common';
import { flattenValidationErrors } from './validation';

const err = (property: string, constraints?: Record<string, string>, children: ValidationError[] = []): ValidationError =>
  ({ property, constraints, children }) as ValidationError;

describe('flattenValidationErrors', () => {
  it('gives one message per field, preferring the type rule, without the property name', () => {
    expect(flattenValidationErrors([
      err('title', { maxLength: 'title must be shorter than or equal to 200 characters', isString: 'title must be a string' }),
    ])).toEqual([{ path: 'title', message: 'must be a string' }]);
  });

  it('says an unknown field is not allowed', () => {
    expect(flattenValidationErrors([err('colour', { whitelistValidation: 'property colour should not exist' })]))
      .toEqual([{ path: 'colour', message: 'is not allowed' }]);
  });

  it('joins nested paths with dots, array indexes included', () => {
    const tree = [err('items', undefined, [err('0', undefined, [err('qty', { isInt: 'qty must be an integer number' })])])];
    expect(flattenValidationErrors(tree)).toEqual([{ path: 'items.0.qty', message: 'must be an integer number' }]);
  });

  it('keeps "each value" messages readable', () => {
    expect(flattenValidationErrors([err('siteIds', { isInt: 'each value in siteIds must be an integer number' })]))
      .toEqual([{ path: 'siteIds', message: 'each value must be an integer number' }]);
  });
});
