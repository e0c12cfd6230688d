import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/**
 * API.md §6: the same `Idempotency-Key` and body replay the first response for 24 h;
 * the same key with another body is a 409. The interceptor is bound per route rather than
 * globally, so routes without it pay nothing for it.
 */
export const Idempotent = () =>
  applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description: 'Up to 255 characters. Retrying with the same key and body replays the first response for 24 h.',
    }),
  );
