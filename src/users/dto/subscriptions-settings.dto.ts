import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import {
  DEFAULT_DUNNING_DAYS,
  dunningDays,
  MAX_DUNNING_DAYS,
  MIN_DUNNING_DAYS,
  SubscriptionsSettings,
} from '../../common/tenancy/site-settings';

/**
 * The `subscriptions` section of a site's settings (docs/users.md, "Dunning"), in and out; the
 * site's DTO (src/account/dto/site.dto.ts) holds it with the other modules' sections.
 */

/** Site users' subscriptions; null clears a field. */
export class SubscriptionsSettingsDto {
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: MIN_DUNNING_DAYS,
    maximum: MAX_DUNNING_DAYS,
    example: DEFAULT_DUNNING_DAYS,
    description:
      'The dunning window: days a `past_due` subscription waits for its unpaid period charge before it is ' +
      `canceled (\`unpaid\`), whatever its period's length; null: ${DEFAULT_DUNNING_DAYS}. Applies to charges ` +
      'that fall due after the change',
  })
  @IsOptional()
  @IsInt()
  @Min(MIN_DUNNING_DAYS)
  @Max(MAX_DUNNING_DAYS)
  dunningDays?: number | null;
}

export class SubscriptionsSettingsResponseDto {
  @ApiProperty({
    example: DEFAULT_DUNNING_DAYS,
    description: 'Days a `past_due` subscription waits for its unpaid period charge before it is canceled',
  })
  dunningDays: number;
}

/** The section as a site's answer shows it: the default for what the site did not set. */
export function toSubscriptionsSettings(
  subscriptions: SubscriptionsSettings | undefined,
): SubscriptionsSettingsResponseDto {
  return { dunningDays: dunningDays(subscriptions) };
}
