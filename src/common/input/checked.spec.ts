import 'reflect-metadata';
import { OmitType, PartialType, PickType } from '@nestjs/swagger';
import { IsString, validate } from 'class-validator';
import { plainToInstance } from 'class-transformer';
import { Checked, CheckedBody, checkedRules } from './checked';

class Base {
  @IsString() @Checked('stored data', 'Names a list of the site.') listId: string;
}

@CheckedBody('stored data', 'The thing must be ready.')
class Create extends Base {
  @IsString() @Checked('other fields', 'Before `to`.') @Checked('time', 'In the future.') from: string;
  @IsString() to: string;
}

const FROM = [
  { kind: 'time', sentence: 'In the future.' },
  { kind: 'other fields', sentence: 'Before `to`.' },
];
const LIST_ID = [{ kind: 'stored data', sentence: 'Names a list of the site.' }];

describe('@Checked', () => {
  it("is read through the class chain, an ancestor's first", () => {
    class Narrowed extends Create {
      @IsString() @Checked('configuration', 'A host of the allow-list.') declare listId: string;
    }
    expect(checkedRules(Narrowed, 'listId')).toEqual([
      ...LIST_ID,
      { kind: 'configuration', sentence: 'A host of the allow-list.' },
    ]);
    expect(checkedRules(Create, 'from')).toEqual(FROM);
    expect(checkedRules(Create, 'to')).toEqual([]);
  });

  // The guide's update body is PartialType(CreateXDto): it must keep the marks of the create.
  it('follows a property into PartialType, PickType and OmitType, and only the properties they keep', () => {
    for (const Mapped of [PartialType(Create), PartialType(Create, { skipNullProperties: false })]) {
      expect(checkedRules(Mapped, 'from')).toEqual(FROM);
      expect(checkedRules(Mapped, 'listId')).toEqual(LIST_ID);
    }
    const picked = PickType(Create, ['from'] as const);
    expect([checkedRules(picked, 'from'), checkedRules(picked, 'listId')]).toEqual([FROM, []]);
    const omitted = OmitType(Create, ['from'] as const);
    expect([checkedRules(omitted, 'from'), checkedRules(omitted, 'listId')]).toEqual([[], LIST_ID]);
    expect(checkedRules(PartialType(PickType(Create, ['from'] as const)), 'from')).toEqual(FROM);
  });

  it("marks a body as a whole on its own class and its subclasses, not on a mapped type's", () => {
    class Sub extends Create {}
    expect(checkedRules(Sub, '')).toEqual([{ kind: 'stored data', sentence: 'The thing must be ready.' }]);
    expect(checkedRules(PartialType(Create), '')).toEqual([]);
  });

  it('refuses nothing itself: the service enforces the rule', async () => {
    const body = plainToInstance(Create, { listId: 'x', from: 'y', to: 'z' });
    expect(await validate(body)).toEqual([]);
    expect((await validate(plainToInstance(Create, { listId: 1, from: 'y', to: 'z' }))).map((e) => e.property)).toEqual(
      ['listId'],
    );
  });
});
