import { ValidationError } from '@nestjs/common';
import { MAX_LISTED_ERRORS, ValidationProblem } from './problems';
import { flattenValidationErrors } from './validation';

const err = (
  property: string,
  constraints?: Record<string, string>,
  children: ValidationError[] = [],
): ValidationError => ({ property, constraints, children });

describe('flattenValidationErrors', () => {
  it('gives one message per field, preferring the type rule, without the property name', () => {
    expect(
      flattenValidationErrors([
        err('title', {
          maxLength: 'title must be shorter than or equal to 200 characters',
          isString: 'title must be a string',
        }),
      ]),
    ).toEqual([{ path: 'title', message: 'must be a string' }]);
  });

  it('says an unknown field is not allowed', () => {
    expect(
      flattenValidationErrors([err('colour', { whitelistValidation: 'property colour should not exist' })]),
    ).toEqual([{ path: 'colour', message: 'is not allowed' }]);
  });

  it('joins nested paths with dots, array indexes included', () => {
    const tree = [
      err('items', undefined, [err('0', undefined, [err('qty', { isInt: 'qty must be an integer number' })])]),
    ];
    expect(flattenValidationErrors(tree)).toEqual([{ path: 'items.0.qty', message: 'must be an integer number' }]);
  });

  it('names a field left out as required and a null as null, whatever its rules say; an unknown field stays not allowed', () => {
    const withValue = (property: string, value: unknown, constraints: Record<string, string>): ValidationError => ({
      ...err(property, constraints),
      value,
    });
    expect(
      flattenValidationErrors([
        withValue('unitAmount', undefined, { isInt: 'unitAmount must be an integer number' }),
        withValue('title', null, { isNotEmpty: 'title should not be empty', isString: 'title must be a string' }),
        withValue('colour', null, { whitelistValidation: 'property colour should not exist' }),
        withValue('title', 5, { isString: 'title must be a string' }),
      ]),
    ).toEqual([
      { path: 'unitAmount', message: 'is required' },
      { path: 'title', message: 'cannot be null' },
      { path: 'colour', message: 'is not allowed' },
      { path: 'title', message: 'must be a string' },
    ]);
  });

  it('keeps "each value" messages readable', () => {
    expect(
      flattenValidationErrors([err('siteIds', { isInt: 'each value in siteIds must be an integer number' })]),
    ).toEqual([{ path: 'siteIds', message: 'each value must be an integer number' }]);
  });
});

describe('ValidationProblem', () => {
  it('lists the first 50 errors and says how many there were', () => {
    const errors = Array.from({ length: 100_001 }, (_, i) => ({ path: `authors.${i}`, message: 'must be an object' }));
    const problem = new ValidationProblem(errors);
    expect(problem.errors).toHaveLength(MAX_LISTED_ERRORS);
    expect(problem.errors?.[49]).toEqual({ path: 'authors.49', message: 'must be an object' });
    expect(problem.totalErrors).toBe(100_001);
    expect(problem.detail).toBe('100001 fields are invalid; the first 50 are listed');
  });

  it('has no total when every error is listed', () => {
    const problem = new ValidationProblem([{ path: 'a', message: 'b' }]);
    expect({ detail: problem.detail, totalErrors: problem.totalErrors }).toEqual({
      detail: '1 field is invalid',
      totalErrors: undefined,
    });
  });
});
