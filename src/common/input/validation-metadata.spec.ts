import { getMetadataStorage, IsInt, IsString, MaxLength, Min, validateSync } from 'class-validator';
import { memoizeValidationMetadata } from './validation-metadata';

class Base {
  @IsString()
  name!: string;
}

class Child extends Base {
  @IsInt()
  @Min(1)
  count!: number;
}

class Grouped {
  @MaxLength(3, { groups: ['short'] })
  @IsString()
  code!: string;
}

const lookup = (target: Function, groups?: string[]) =>
  getMetadataStorage()
    .getTargetValidationMetadatas(target, '', false, false, groups)
    .map((m) => `${m.propertyName}:${m.name ?? m.type}`)
    .sort();

describe('memoizeValidationMetadata', () => {
  const before = {
    base: lookup(Base),
    child: lookup(Child),
    grouped: lookup(Grouped),
    short: lookup(Grouped, ['short']),
  };
  memoizeValidationMetadata();

  it('answers what class-validator answered, inherited and grouped rules included, and the same array again', () => {
    expect(lookup(Base)).toEqual(before.base);
    expect(lookup(Child)).toEqual(before.child);
    expect(before.child).toEqual(expect.arrayContaining(['name:isString', 'count:isInt', 'count:min']));
    expect(lookup(Grouped)).toEqual(before.grouped);
    expect(lookup(Grouped, ['short'])).toEqual(before.short);
    expect(before.short).not.toEqual(before.grouped);
    const storage = getMetadataStorage();
    expect(storage.getTargetValidationMetadatas(Child, '', false, false)).toBe(
      storage.getTargetValidationMetadatas(Child, '', false, false),
    );
  });

  it('validates as before: inherited rules still apply', () => {
    const bad = Object.assign(new Child(), { name: 7, count: 0 });
    expect(
      validateSync(bad)
        .map((e) => e.property)
        .sort(),
    ).toEqual(['count', 'name']);
    expect(validateSync(Object.assign(new Child(), { name: 'a', count: 2 }))).toEqual([]);
  });
});
