import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { CHALLENGES } from '../auth/challenges';

export class FieldErrorDto {
  @ApiProperty({ example: 'email' }) path: string;
  @ApiProperty({ example: 'must be an email' }) message: string;
}

/** RFC 9457 problem details, as every error is rendered. */
export class ProblemDto {
  @ApiProperty({
    example: '/problems/validation-failed',
    description: 'A page about the code (HTML, or JSON on `Accept: application/json`), relative to the API',
  })
  type: string;
  @ApiProperty({ example: 'Validation failed' }) title: string;
  @ApiProperty({ example: 400 }) status: number;
  @ApiPropertyOptional({ example: '1 field is invalid' }) detail?: string;
  @ApiProperty({ example: 'validation_failed' }) code: string;
  @ApiPropertyOptional({ type: [FieldErrorDto] }) errors?: FieldErrorDto[];
  @ApiPropertyOptional({
    example: 120,
    description: 'How many fields were invalid, present only when `errors` lists the first 50 of them',
  })
  totalErrors?: number;
  @ApiPropertyOptional({ example: 'b3f0c2a4-8d1e-4f1a-9c55-0d8b1c1f2e77' }) requestId?: string;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed JSON, an invalid or unknown field, or a bad path or query parameter',
  401: 'Missing, malformed, revoked or expired credential',
  403: 'The credential may not do this',
  404: 'No such resource in this site, or a site the caller cannot reach',
  405: 'The path does not have this method; the `Allow` header lists the ones it has',
  409: 'Duplicate, forbidden state transition, or an idempotency key reused with another body',
  410: 'Gone: a mailed link that expired or was already used',
  412: 'If-Match no longer matches the ETag',
  413: 'Body or upload too large',
  415: 'Media type or Content-Encoding of the body not accepted',
  429: 'Rate limited; see Retry-After',
  503: 'Not ready: a dependency (the database) does not answer',
};

/** Documents the problem statuses a route can answer. */
export function ApiProblems(...statuses: number[]) {
  return applyDecorators(...statuses.map((status) => ApiProblem(status)));
}

/** Headers a problem status always carries (the problem filter sets them). */
const HEADERS: Record<number, Record<string, { description: string; required: true; schema: { type: 'string' } }>> = {
  401: {
    'WWW-Authenticate': {
      description: `The credentials the route takes (RFC 9110): \`${CHALLENGES.any}\` (a key in x-api-key or as a bearer token), \`${CHALLENGES.apiKey}\` on v1, \`${CHALLENGES.session}\` for a session`,
      required: true,
      schema: { type: 'string' },
    },
  },
};

/** One problem status, with a description of its own where the route says more (a 429's budget). */
export function ApiProblem(status: number, description = DESCRIPTIONS[status] ?? 'Error') {
  return ApiResponse({
    status,
    description,
    ...(HEADERS[status] ? { headers: HEADERS[status] } : {}),
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDto' } } },
  });
}
