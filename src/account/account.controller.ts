import { Controller, Delete, Get, HttpCode } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountAdmin, AdminRoute, AllowedDuringDeletion, ApiKeyAuth, CurrentKey } from '../common/auth/decorators';
import { KeyPrincipal } from '../common/auth/principal';
import { ApiProblems } from '../common/errors/api-problems.decorator';
import { AccountDeletionService } from './account-deletion.service';
import {
  AccountDeletionResponseDto,
  DeletionPreviewResponseDto,
  toDeletionResponse,
  toPreviewResponse,
} from './dto/deletion.dto';

@ApiTags('Account')
@ApiKeyAuth()
@AccountAdmin()
@Controller('api/v2/account')
export class AccountController {
  constructor(private readonly deletions: AccountDeletionService) {}

  @Delete()
  @HttpCode(202)
  // Asking again while scheduled answers the same deletion rather than 403.
  @AllowedDuringDeletion()
  @ApiOperation({
    summary: 'Delete the account',
    description:
      'Schedules the purge of every site, key and stored file after the grace period (ACCOUNT_DELETION_GRACE_SECONDS). Until then the account can only read and cancel.',
  })
  @ApiAcceptedResponse({ type: AccountDeletionResponseDto })
  @ApiProblems(401, 403)
  async remove(@CurrentKey() key: KeyPrincipal): Promise<AccountDeletionResponseDto> {
    return toDeletionResponse(await this.deletions.schedule(key));
  }

  @Get('deletion')
  @ApiOperation({ summary: 'Get deletion status', description: 'The latest deletion request of the account.' })
  @ApiOkResponse({ type: AccountDeletionResponseDto })
  @ApiProblems(401, 403, 404)
  async deletion(@CurrentKey() key: KeyPrincipal): Promise<AccountDeletionResponseDto> {
    return toDeletionResponse(await this.deletions.latest(key));
  }

  @Delete('deletion')
  @AdminRoute()
  @AllowedDuringDeletion()
  @ApiOperation({ summary: 'Cancel a scheduled deletion (admin)', description: 'Possible until the purge starts.' })
  @ApiOkResponse({ type: AccountDeletionResponseDto })
  @ApiProblems(401, 403, 404, 409)
  async cancel(@CurrentKey() key: KeyPrincipal): Promise<AccountDeletionResponseDto> {
    return toDeletionResponse(await this.deletions.cancel(key));
  }

  @Get('deletion-preview')
  @ApiOperation({
    summary: 'Get deletion preview',
    description: 'Counts, per resource, what deleting the account would remove, cancel, forfeit or anonymise.',
  })
  @ApiOkResponse({ type: DeletionPreviewResponseDto })
  @ApiProblems(401, 403)
  async preview(@CurrentKey() key: KeyPrincipal): Promise<DeletionPreviewResponseDto> {
    const { gracePeriodSeconds, impacts } = await this.deletions.preview(key);
    return toPreviewResponse(gracePeriodSeconds, impacts);
  }
}
