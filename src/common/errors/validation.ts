import { ArgumentMetadata, ValidationError, ValidationPipe, ValidationPipeOptions } from '@nestjs/common';
import { validationRules } from '../internals/class-validator-metadata';
import { FORBIDDEN_KEYS } from '../input/json-body';
import { FieldError, ValidationProblem } from './problems';

/**
 * When a field breaks several rules, the one that explains it best: "not allowed", "required",
 * then the type, then anything else (class-validator runs rules in reverse declaration order,
 * so "first" would be arbitrary).
 */
const PRIORITY = [
  'whitelistValidation',
  'isDefined',
  'isNotEmpty',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isDate',
  'isDateString',
  'isObject',
  'isEnum',
  'isIn',
  'nestedValidation',
];

function bestMessage(property: string, constraints: Record<string, string>): string {
  const key = PRIORITY.find((k) => k in constraints) ?? Object.keys(constraints)[0];
  const message = constraints[key];
  if (key === 'whitelistValidation') return 'is not allowed';
  // class-validator starts messages with the property name; the path already says it.
  if (message.startsWith(`each value in ${property} `))
    return `each value ${message.slice(`each value in ${property} `.length)}`;
  if (message.startsWith(`${property} `)) return message.slice(property.length + 1);
  return message;
}

/** The messages that say what to send where a rule's own would describe a type the value never had. */
export const REQUIRED_MESSAGE = 'is required';
export const NOT_NULL_MESSAGE = 'cannot be null';

/**
 * What class-validator keeps of a failing value: the value itself (never the object), so that a
 * field left out reads "is required" and a null "cannot be null" rather than "must be an integer
 * number" or "should not be empty"; messages are all that leave (no value is echoed).
 */
export const VALIDATION_ERROR_SHAPE = { target: false, value: true } as const;

/**
 * One field's message. A field that is absent or null breaks every rule it has, and its rules
 * would describe a value it never had: it is named as missing or null instead, for every DTO at
 * once. An unknown field is "not allowed" whatever its value. A tree built without values
 * (`value: false`, hand-made in a test) keeps its rules' messages.
 */
function messageOf(e: ValidationError, constraints: Record<string, string>): string {
  if (!('whitelistValidation' in constraints) && 'value' in e) {
    if (e.value === undefined) return REQUIRED_MESSAGE;
    if (e.value === null) return NOT_NULL_MESSAGE;
  }
  return bestMessage(e.property, constraints);
}

/** Flattens class-validator's tree into one `{ path: 'a.b.0.c', message }` per invalid field. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    const path = parent ? `${parent}.${e.property}` : e.property;
    if (e.constraints && Object.keys(e.constraints).length > 0)
      out.push({ path, message: messageOf(e, e.constraints) });
    if (e.children?.length) out.push(...flattenValidationErrors(e.children, path));
  }
  return out;
}

const arrayLimits = new WeakMap<Function, Array<[string, number]>>();

/** The @ArrayMaxSize() limits a DTO declares on its own properties, read once per class. */
function arrayLimitsOf(dto: Function): Array<[string, number]> {
  let limits = arrayLimits.get(dto);
  if (!limits) {
    limits = validationRules(dto)
      .filter((m) => m.name === 'arrayMaxSize' && !m.each)
      .map((m) => [m.propertyName, Number(m.constraints[0])]);
    arrayLimits.set(dto, limits);
  }
  return limits;
}

/**
 * The global pipe, with two checks before class-transformer and class-validator run:
 * - query keys that name Object.prototype members (`constructor`, `toString`, `__proto__`) are
 *   dropped by class-transformer before the whitelist sees them: refused like any unknown field
 *   (bodies are checked, at every depth, when they are read: RequestBodyGuard);
 * - an array longer than its @ArrayMaxSize() is refused at once: validating 100,000 items one by
 *   one took a second of CPU for one 200 kB body.
 */
class InputValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (value !== null && typeof value === 'object') {
      if (metadata.type === 'query') {
        const forbidden = Object.keys(value).filter((key) => FORBIDDEN_KEYS.has(key));
        if (forbidden.length)
          throw new ValidationProblem(forbidden.map((path) => ({ path, message: 'is not allowed' })));
      }
      if (metadata.type === 'body' && metadata.metatype) {
        const body = value as Record<string, unknown>;
        const tooLong = arrayLimitsOf(metadata.metatype)
          .filter(([name, max]) => Array.isArray(body[name]) && (body[name] as unknown[]).length > max)
          .map(([path, max]) => ({ path, message: `must contain no more than ${max} elements` }));
        if (tooLong.length) throw new ValidationProblem(tooLong);
      }
    }
    return super.transform(value, metadata);
  }
}

/** The global pipe's options: whitelist, reject unknown fields, transform types, problem+json errors. */
export const VALIDATION_PIPE_OPTIONS: ValidationPipeOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  transformOptions: { enableImplicitConversion: false },
  validationError: VALIDATION_ERROR_SHAPE,
  exceptionFactory: (errors) => new ValidationProblem(flattenValidationErrors(errors)),
};

/** The global pipe (VALIDATION_PIPE_OPTIONS, with the checks of InputValidationPipe). */
export function createValidationPipe(): ValidationPipe {
  return new InputValidationPipe(VALIDATION_PIPE_OPTIONS);
}
