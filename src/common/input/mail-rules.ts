import { applyDecorators } from '@nestjs/common';
import { IsEmail, IsString, Matches, MaxLength } from 'class-validator';

/** No CR or LF: a value that goes into a mail header could otherwise add headers of its own. */
const ONE_LINE = /^[^\r\n]*$/;

/**
 * A mail address (RFC 5321 length limit), never more than one line. `{ each: true }` checks
 * every item of an array instead (combine with @IsArray()).
 */
export const IsMailAddress = (options: { each?: boolean } = {}) =>
  applyDecorators(
    Matches(ONE_LINE, { message: 'must not contain line breaks', each: options.each }),
    MaxLength(254, { each: options.each }),
    IsEmail(
      { allow_display_name: false, allow_utf8_local_part: true },
      { message: 'must be an email address', each: options.each },
    ),
    IsString({ each: options.each }),
  );

/** Text that ends up in a mail header (a display name, a subject): one line, at most `max`. */
export const IsHeaderText = (max: number) =>
  applyDecorators(Matches(ONE_LINE, { message: 'must not contain line breaks' }), MaxLength(max), IsString());
