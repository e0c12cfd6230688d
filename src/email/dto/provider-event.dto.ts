import { ApiProperty } from '@nestjs/swagger';
import { FreeFormBody } from '../../common/http/openapi-derive';
import type { ProviderOutcome } from '../bounces/provider-events.service';

/**
 * A provider's webhook body, as the provider writes it (docs/deliverability.md): read and verified
 * from its exact bytes by the route, never validated field by field here.
 */
@FreeFormBody()
export class ProviderPayloadDto {
  [field: string]: unknown;
}

const OUTCOMES: ProviderOutcome[] = ['recorded', 'duplicate', 'unmatched', 'ignored'];

export class ProviderEventOutcomeDto {
  @ApiProperty({
    enum: OUTCOMES,
    example: 'recorded',
    description:
      '`recorded`: the policy applied; `duplicate`: this report (or this signed call) came before; ' +
      '`unmatched`: it names no message of ours; `ignored`: no bounce nor complaint (a delivery, an open).',
  })
  outcome: ProviderOutcome;
}

export class ProviderBatchOutcomeDto {
  @ApiProperty({
    enum: OUTCOMES,
    isArray: true,
    example: ['recorded', 'ignored'],
    description: 'One per event, in order',
  })
  outcomes: ProviderOutcome[];
}

export function toProviderBatchOutcome(outcomes: ProviderOutcome[]): ProviderBatchOutcomeDto {
  return { outcomes };
}

export function toProviderEventOutcome(outcome: ProviderOutcome): ProviderEventOutcomeDto {
  return { outcome };
}
