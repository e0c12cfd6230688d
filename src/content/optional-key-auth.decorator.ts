import { applyDecorators } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import { ApiKeyAuth } from '../common/auth/decorators';

/** OpenAPI for a public read that shows more with a key: no credential, or a secret key. */
export const OptionalKeyAuth = () => applyDecorators(ApiKeyAuth(), ApiSecurity({}));
