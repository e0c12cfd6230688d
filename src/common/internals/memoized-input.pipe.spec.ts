import { ArgumentMetadata } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { createValidationPipe } from '../errors/validation';
import { ValidationProblem } from '../errors/problems';
import { inputPipe, MEMOIZED_INPUT, MemoizedInputPipe } from './memoized-input.pipe';

class LimitQuery {
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number;
}

class TokenParam {
  @IsString()
  @Matches(/^t[0-9]+$/)
  token: string;
}

const query: ArgumentMetadata = { type: 'query', metatype: LimitQuery };

describe('MemoizedInputPipe', () => {
  it('validates a query once and answers the same frozen result for the same input', async () => {
    const inner = createValidationPipe();
    const spy = jest.spyOn(inner, 'transform');
    const pipe = new MemoizedInputPipe(inner);
    const first = await pipe.transform({ limit: '20' }, query);
    const second = await pipe.transform({ limit: '20' }, query);
    expect(first).toBeInstanceOf(LimitQuery);
    expect(first).toEqual({ limit: 20 });
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(await pipe.transform({ limit: '21' }, query)).toEqual({ limit: 21 });
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it('keeps no errors: a bad input is refused every time', async () => {
    const inner = createValidationPipe();
    const spy = jest.spyOn(inner, 'transform');
    const pipe = new MemoizedInputPipe(inner);
    for (let i = 0; i < 2; i++)
      await expect(pipe.transform({ limit: '1000' }, query)).rejects.toBeInstanceOf(ValidationProblem);
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it('never memoises bodies', async () => {
    const inner = createValidationPipe();
    const spy = jest.spyOn(inner, 'transform');
    const pipe = new MemoizedInputPipe(inner);
    const body: ArgumentMetadata = { type: 'body', metatype: LimitQuery };
    const a = await pipe.transform({ limit: 5 }, body);
    const b = await pipe.transform({ limit: 5 }, body);
    expect(a).not.toBe(b);
    expect(Object.isFrozen(a)).toBe(false);
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it('stops memoising a class whose inputs never repeat, and still validates every one', async () => {
    const inner = createValidationPipe();
    const spy = jest.spyOn(inner, 'transform');
    const pipe = new MemoizedInputPipe(inner);
    // Inputs that repeat stay memoised: 2,100 lookups of 100 values are validated 100 times.
    for (let i = 0; i < 2100; i++) await pipe.transform({ limit: String((i % 100) + 1) }, query);
    expect(spy).toHaveBeenCalledTimes(100);
    spy.mockClear();
    const token: ArgumentMetadata = { type: 'param', metatype: TokenParam };
    for (let i = 0; i < 2500; i++) await pipe.transform({ token: `t${i}` }, token);
    expect(spy).toHaveBeenCalledTimes(2500);
    spy.mockClear();
    // Judged unique: a repeated input is validated again rather than answered from a memo.
    const once = await pipe.transform({ token: 't7' }, token);
    const twice = await pipe.transform({ token: 't7' }, token);
    expect(spy).toHaveBeenCalledTimes(2);
    expect(twice).not.toBe(once);
    expect(twice).toEqual({ token: 't7' });
    expect(Object.isFrozen(twice)).toBe(false);
    await expect(pipe.transform({ token: 'x' }, token)).rejects.toBeInstanceOf(ValidationProblem);
    // The repeating class is still memoised.
    spy.mockClear();
    await pipe.transform({ limit: '20' }, query);
    expect(spy).not.toHaveBeenCalled();
  });

  it('keeps a query and path parameters of one class apart', async () => {
    const inner = createValidationPipe();
    const pipe = new MemoizedInputPipe(inner);
    const param: ArgumentMetadata = { type: 'param', metatype: TokenParam };
    const asQuery: ArgumentMetadata = { type: 'query', metatype: TokenParam };
    expect(await pipe.transform({ token: 't1', constructor: 'x' }, param)).toEqual({ token: 't1' });
    // The same input as a query: its Object.prototype key is refused, not answered from the memo.
    await expect((async () => pipe.transform({ token: 't1', constructor: 'x' }, asQuery))()).rejects.toBeInstanceOf(
      ValidationProblem,
    );
  });
});

describe('inputPipe: the memo only when fast paths are on and its fence holds', () => {
  const plain = createValidationPipe();
  const installed = (pkg: string) => MEMOIZED_INPUT.writtenFor[pkg];

  it('puts the memo in front of the plain pipe, without a warning', () => {
    const warn = jest.fn();
    expect(inputPipe(plain, { FAST_PATHS: true }, warn, installed)).toBeInstanceOf(MemoizedInputPipe);
    expect(warn).not.toHaveBeenCalled();
  });

  it('answers the plain pipe when FAST_PATHS is off', () => {
    const warn = jest.fn();
    expect(inputPipe(plain, { FAST_PATHS: false }, warn, installed)).toBe(plain);
    expect(warn).not.toHaveBeenCalled();
  });

  it('steps aside with one warning when a library is another version', () => {
    const warn = jest.fn();
    const newer = (pkg: string) => (pkg === 'class-validator' ? '0.16.0' : installed(pkg));
    expect(inputPipe(plain, { FAST_PATHS: true }, warn, newer)).toBe(plain);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(MEMOIZED_INPUT, { 'class-validator': '0.16.0' });
  });
});
