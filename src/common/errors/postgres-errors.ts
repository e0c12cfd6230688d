import { QueryFailedError } from 'typeorm';
import { BadRequestProblem, ConflictProblem, Problem } from './problems';

interface PgDriverError {
  code?: string;
  constraint?: string;
}

/**
 * Maps the PostgreSQL errors a client can provoke to problems, in one place. Anything else
 * stays unknown and becomes a 500 (a bug).
 */
export function problemFromPostgres(err: unknown): Problem | undefined {
  if (!(err instanceof QueryFailedError)) return undefined;
  const pg = err.driverError as PgDriverError;
  switch (pg.code) {
    case '23505':
      return new ConflictProblem('duplicate', 'A resource with the same unique value already exists');
    case '23503':
      return new ConflictProblem(
        'reference_conflict',
        'The resource is referenced by, or refers to, another one that does not allow this',
      );
    case '40P01': // deadlock_detected
    case '40001': // serialization_failure
      // A timing outcome, not a bug: the transaction it hit was rolled back whole, so a retry is safe.
      return new ConflictProblem(
        'concurrent_update',
        'The request met another one changing the same data at the same time; retry it',
      );
    case '22P02': // invalid_text_representation
    case '22003': // numeric_value_out_of_range
    case '22001': // string_data_right_truncation
    case '22007': // invalid_datetime_format
    case '22008': // datetime_field_overflow
    case '22009': // invalid_time_zone_displacement_value, e.g. a year past 9999 written "+275760-..."
    case '22023': // invalid_parameter_value
    case '2201B': // invalid_regular_expression
    case '22021': // character_not_in_repertoire, e.g. a NUL character in a text value
    case '22P05': // untranslatable_character
      return new BadRequestProblem('invalid_value', 'A value is out of range or malformed');
    default:
      return undefined;
  }
}

/** True when `err` is a unique violation (optionally on one named constraint). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const pg = err.driverError as PgDriverError;
  return pg.code === '23505' && (constraint === undefined || pg.constraint === constraint);
}
