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
