import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';

export const IDEMPOTENT = 'sitebase:idempotent';

/**
 * API.md §6: the same `Idempotency-Key` and body replay the first response for 24 h;
 * the same key with another body is a 409.
 */
export const Idempotent = () =>
  applyDecorators(
    SetMetadata(IDEMPOTENT, true),
    ApiHeader({
      name: 'Idempotency-Key', required: false,
      description: 'Up to 255 characters. Retrying with the same key and body replays the first response for 24 h.',
    }),
  );
