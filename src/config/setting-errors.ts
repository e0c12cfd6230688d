import { getMetadataStorage, ValidationError } from 'class-validator';

type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

/** Settings whose value is never printed, not even when it is wrong. */
const SECRET_SETTINGS = new Set([
  'DATABASE_URL',
  'SMTP_URL',
  'BOOTSTRAP_API_KEY',
  'METRICS_TOKEN',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
]);

/**
 * One line per wrong setting, for the person who set it: the variable, the value it was given
 * and what it accepts, read from the setting's own validators (so the line cannot drift from
 * them). Secrets are named, never shown.
 */
export function describeSettingError(target: object, error: ValidationError, raw: Record<string, string>): string {
  const name = error.property;
  const given = raw[name];
  if (given === undefined) return `Missing setting ${name}: ${allowedValues(target, name)}.`;
  const value = SECRET_SETTINGS.has(name) ? '(value hidden)' : JSON.stringify(given);
  return `Invalid setting ${name}=${value}: ${allowedValues(target, name)}.`;
}

function allowedValues(target: object, name: string): string {
  const rules = getMetadataStorage()
    .getTargetValidationMetadatas(target.constructor, '', true, false)
    .filter((m) => m.propertyName === name && m.type === 'customValidation');
  const rule = (n: string): ValidationMetadata | undefined => rules.find((m) => m.name === n);
  // A validator that carries its own sentence says it best (PUBLIC_BASE_URL, SMTP_URL, ...).
  const worded = rules.find((m) => typeof m.message === 'string');
  if (worded) return worded.message as string;
  if (rule('isBoolean')) return 'use true or false (also 1/0, yes/no, on/off)';
  const isIn = rule('isIn');
  if (isIn) return `use one of ${(isIn.constraints[0] as string[]).join(', ')}`;
  const isInt = rule('isInt');
  if (isInt) {
    const min = rule('min')?.constraints[0] as number | undefined;
    const max = rule('max')?.constraints[0] as number | undefined;
    const range =
      min !== undefined && max !== undefined
        ? ` from ${min} to ${max}`
        : min !== undefined
          ? ` of at least ${min}`
          : max !== undefined
            ? ` of at most ${max}`
            : '';
    return isInt.each ? `use whole numbers${range}, separated by commas (or none)` : `use a whole number${range}`;
  }
  const matches = rule('matches');
  if (matches) return `use text matching ${String(matches.constraints[0])}`;
  return 'see .env.example for what it accepts';
}
