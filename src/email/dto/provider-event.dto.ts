import { ApiProperty } from '@nestjs/swagger';
import { FreeFormBody } from '../../common/openapi/openapi-derive';
import type { ProviderOutcome, SesOutcome } from '../bounces/provider-events.service';
import type { SnsType } from '../bounces/providers/ses';

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

const SNS_TYPES: SnsType[] = ['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'];

export class SesOutcomeDto {
  @ApiProperty({
    enum: SNS_TYPES,
    example: 'Notification',
    description:
      'The SNS message’s Type: a `Notification` carries an SES event; a `SubscriptionConfirmation` was ' +
      'confirmed (its SubscribeURL called); an `UnsubscribeConfirmation` is only logged.',
  })
  type: SnsType;

  @ApiProperty({
    enum: OUTCOMES,
    isArray: true,
    example: ['recorded'],
    description: 'One per recipient the SES event names, in order (none for a confirmation)',
  })
  outcomes: ProviderOutcome[];
}

export function toSesOutcome(outcome: SesOutcome): SesOutcomeDto {
  return { type: outcome.type, outcomes: outcome.outcomes };
}

export function toProviderBatchOutcome(outcomes: ProviderOutcome[]): ProviderBatchOutcomeDto {
  return { outcomes };
}

export function toProviderEventOutcome(outcome: ProviderOutcome): ProviderEventOutcomeDto {
  return { outcome };
}
