import 'reflect-metadata';
import { DECORATORS } from '@nestjs/swagger';
import { FieldOwner, fieldOwners } from '../../common/input/field-owner';
import { validationRules } from '../../common/internals/class-validator-metadata';
import { SiteUserEntity } from '../entities/site-user.entity';
import { MeResponseDto, toMeResponse, UpdateMeDto, UpdateUserDto, UserResponseDto } from './user.dto';

/** The fields OpenAPI sees on a class (its ancestors' included). */
function documented(cls: Function): string[] {
  const names = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, cls.prototype) ?? []) as string[];
  return names.map((n) => n.replace(/^:/, ''));
}

/** The fields a request DTO accepts: those with a validation rule (the pipe rejects any other). */
function accepted(cls: Function): string[] {
  const rules = validationRules(cls);
  return [...new Set([...rules.map((r) => r.propertyName), ...documented(cls)])].sort();
}

const user = Object.assign(new SiteUserEntity(), {
  id: 1,
  siteId: 2,
  email: 'ada@example.com',
  name: 'Ada',
  status: 'active',
  metadata: {},
  emailVerifiedAt: null,
  lastSignInAt: null,
  deletionScheduledAt: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

describe('the user resource: every field has an owner (docs/users.md, "The user")', () => {
  const marks = fieldOwners(MeResponseDto);

  it.each([
    ['UserResponseDto', UserResponseDto],
    ['MeResponseDto', MeResponseDto],
  ])('%s: every documented field carries a mark', (_name, cls) => {
    expect(documented(cls).filter((f) => fieldOwners(cls)[f] === undefined)).toEqual([]);
  });

  it('every field the mapper answers carries a mark (a field without any decorator is caught too)', () => {
    expect(Object.keys(toMeResponse(user, null)).filter((f) => marks[f] === undefined)).toEqual([]);
    expect(Object.keys(marks).sort()).toEqual(Object.keys(toMeResponse(user, null)).sort());
  });

  it('PATCH /me accepts only fields marked `user`', () => {
    expect(accepted(UpdateMeDto).map((f) => [f, marks[f]])).toEqual(accepted(UpdateMeDto).map((f) => [f, 'user']));
    expect(accepted(UpdateMeDto)).toEqual(['email', 'name']);
  });

  it('an operator’s update accepts no `server` field, and only fields of the resource', () => {
    expect(accepted(UpdateUserDto).filter((f) => marks[f] === undefined || marks[f] === 'server')).toEqual([]);
    expect(accepted(UpdateUserDto)).toEqual(['email', 'metadata', 'name', 'status']);
  });

  it('metadata is the operators’, and the document says who owns each field', () => {
    expect(marks).toMatchObject({
      metadata: 'operator',
      status: 'operator',
      name: 'user',
      email: 'user',
      id: 'server',
    });
    const props = (name: string) =>
      Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, MeResponseDto.prototype, name) as Record<string, unknown>;
    expect(props('metadata').description).toMatch(/only by an operator/);
    expect(props('name').description).toMatch(/Changed by the user/);
    expect([props('id').readOnly, props('name').readOnly]).toEqual([true, undefined]);
  });

  it('the check itself fails for a field without a mark, or a mark the DTO breaks', () => {
    class Loose extends UserResponseDto {
      @FieldOwner('server') extra: string;
      plain: string;
    }
    Reflect.defineMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, [...documented(Loose), ':plain'], Loose.prototype);
    expect(documented(Loose).filter((f) => fieldOwners(Loose)[f] === undefined)).toEqual(['plain']);
    // The parent's marks are not changed by a subclass's.
    expect(fieldOwners(UserResponseDto).extra).toBeUndefined();
    expect(fieldOwners(Loose).extra).toBe('server');
  });
});
