import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ValidationProblem } from '../errors/problems';
import { flattenValidationErrors, VALIDATION_ERROR_SHAPE } from '../errors/validation';

/**
 * Validates the text fields of a multipart form (and the key command's options, src/cli) like
 * the global pipe validates JSON bodies: unknown fields and bad values are a 400 with their paths.
 */
export function parseFormFields<T extends object>(cls: ClassConstructor<T>, raw: Record<string, unknown>): T {
  const dto = plainToInstance(cls, raw);
  const errors = flattenValidationErrors(
    validateSync(dto, {
      whitelist: true,
      forbidNonWhitelisted: true,
      validationError: VALIDATION_ERROR_SHAPE,
    }),
  );
  // class-transformer silently drops names of Object methods (toString, constructor, ...).
  for (const name of Object.keys(raw)) {
    if (!Object.hasOwn(dto, name)) errors.push({ path: name, message: 'is not allowed' });
  }
  if (errors.length) throw new ValidationProblem(errors);
  return dto;
}

/** OpenAPI schema of an upload form: a binary part plus optional text fields. */
export function uploadFormSchema(fileField: string, textFields: string[], many = false) {
  const file = { type: 'string', format: 'binary' };
  return {
    type: 'object',
    required: [fileField],
    properties: {
      [fileField]: many ? { type: 'array', items: file, description: 'One or several files (repeat the part)' } : file,
      ...Object.fromEntries(textFields.map((f) => [f, { type: 'string' }])),
    },
  };
}
