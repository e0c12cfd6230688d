import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';

/**
 * Who may change a field of a resource: `user` (the person, through their own route, and
 * operators), `operator` (only with a secret key), `server` (nobody: the server sets it).
 */
export const FIELD_OWNERS = ['user', 'operator', 'server'] as const;
export type FieldOwnerKind = (typeof FIELD_OWNERS)[number];

const OWNERS = Symbol('fieldOwners');

const SAYS: Record<FieldOwnerKind, string> = {
  user: 'Changed by the user (their own route) or an operator.',
  operator: 'Changed only by an operator (a secret key); the user reads it.',
  server: 'Read-only: set by the server.',
};

/**
 * A response field with its owner, declared once: the OpenAPI property (its description says
 * who may change it; `server` fields are `readOnly`) and the mark that request DTOs are held to
 * (`fieldOwners`, checked by the resource's tests).
 */
export function FieldOwner(owner: FieldOwnerKind, options: ApiPropertyOptions = {}): PropertyDecorator {
  const said = options.description ? `${options.description.replace(/\.$/, '')}. ${SAYS[owner]}` : SAYS[owner];
  return applyDecorators(
    ApiProperty({
      ...options,
      description: said,
      ...(owner === 'server' ? { readOnly: true } : {}),
    }),
    (target: object, key: string | symbol) => {
      const own = Object.prototype.hasOwnProperty.call(target, OWNERS)
        ? (target as Record<symbol, Record<string, FieldOwnerKind>>)[OWNERS]
        : undefined;
      const marks = own ?? { ...fieldOwnersOf(target) };
      marks[String(key)] = owner;
      Object.defineProperty(target, OWNERS, { value: marks, configurable: true, enumerable: false });
    },
  );
}

function fieldOwnersOf(prototype: object): Record<string, FieldOwnerKind> {
  return (prototype as Record<symbol, Record<string, FieldOwnerKind> | undefined>)[OWNERS] ?? {};
}

/** The marks of a response class, its ancestors' included: field name → owner. */
export function fieldOwners(cls: Function): Readonly<Record<string, FieldOwnerKind>> {
  return { ...fieldOwnersOf(cls.prototype as object) };
}
