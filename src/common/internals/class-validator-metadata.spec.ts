import { ArrayMaxSize, IsOptional, IsString, MaxLength } from 'class-validator';
import { validationRules } from './class-validator-metadata';

class Base {
  @IsString()
  @MaxLength(20)
  name: string;
}

class Child extends Base {
  @IsOptional()
  @ArrayMaxSize(3)
  tags?: string[];
}

describe("reads of class-validator's rule storage", () => {
  it('give every rule of a class: its own (as decorators apply, the lowest first), then its ancestors’', () => {
    const rules = validationRules(Child).map((m) => [m.propertyName, m.name ?? m.type]);
    expect(rules).toEqual([
      ['tags', 'arrayMaxSize'],
      ['tags', 'isOptional'],
      ['name', 'maxLength'],
      ['name', 'isString'],
    ]);
    expect(validationRules(Child).find((m) => m.name === 'arrayMaxSize')?.constraints).toEqual([3]);
    expect(validationRules(Base).map((m) => m.name)).toEqual(['maxLength', 'isString']);
  });

  it('give nothing for a class without rules', () => {
    expect(validationRules(class Plain {})).toEqual([]);
  });
});
