import { ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldError, ValidationProblem } from './problems';

/**
 * When a field breaks several rules, the one that explains it best: "not allowed", "required",
 * then the type, then anything else (class-validator runs rules in reverse declaration order,
 * so "first" would be arbitrary).
 */
const PRIORITY = [
  'whitelistValidation', 'isDefined', 'isNotEmpty', 'isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isDate',
  'isDateString', 'isObject', 'isEnum', 'isIn', 'nestedValidation',
];

function bestMessage(property: string, constraints: Record<string, string>): string {
  const key = PRIORITY.find((k) => k in constraints) ?? Object.keys(constraints)[0];
  const message = constraints[key];
  if (key === 'whitelistValidation') return 'is not allowed';
  // class-validator starts messages with the property name; the path already says it.
  if (message.startsWith(`each value in ${property} `)) return `each value ${message.slice(`each value in ${property} `.length)}`;
  if (message.startsWith(`${property} `)) return message.slice(property.length + 1);
  return message;
}

/** Flattens class-validator's tree into one `{ path: 'a.b.0.c', message }` per invalid field. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    const path = parent ? `${parent}.${e.property}` : e.property;
    if (e.constraints && Object.keys(e.constraints).length > 0) out.push({ path, message: bestMessage(e.property, e.constraints) });
    if (e.children?.length) out.push(...flattenValidationErrors(e.children, path));
  }
  return out;
}

/** The global pipe: whitelist, reject unknown fields, transform types, problem+json errors. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationProblem(flattenValidationErrors(errors)),
  });
}
