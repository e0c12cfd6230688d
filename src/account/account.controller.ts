import { Delete, Get } from '@nestjs/common';
import { CurrentKey } from '../common/auth/decorators';
import { KeyPrincipal } from '../common/auth/principal';
import { AccountDeletionService } from './account-deletion.service';
import {
  AccountDeletionResponseDto,
  DeletionPreviewResponseDto,
  toDeletionResponse,
  toPreviewResponse,
} from './dto/deletion.dto';
import { ApiController, Route } from '../common/http/route.decorator';

@ApiController('api/v2/account', { tag: 'Account', permissions: 'account' })
export class AccountController {
  constructor(private readonly deletions: AccountDeletionService) {}

  // Asking again while scheduled answers the same deletion rather than 403.
  @Delete()
  @Route({
    auth: 'account-key',
    summary: 'Delete the account',
    description:
      'Schedules the purge of every site, key and stored file after the grace period (ACCOUNT_DELETION_GRACE_SECONDS). Until then the account can only read and cancel.',
    duringDeletion: true,
    accepted: AccountDeletionResponseDto,
  })
  async deleteAccount(@CurrentKey() key: KeyPrincipal): Promise<AccountDeletionResponseDto> {
    return toDeletionResponse(await this.deletions.schedule(key));
  }

  @Get('deletion')
  @Route({
    auth: 'account-key',
    summary: 'Get deletion status',
    description: 'The latest deletion request of the account.',
    ok: AccountDeletionResponseDto,
    problems: [404],
    exampleAnswers: {
      status: 404,
      because: 'on a fresh start no deletion is scheduled; DELETE /api/v2/account schedules one',
    },
  })
  async getAccountDeletion(@CurrentKey() key: KeyPrincipal): Promise<AccountDeletionResponseDto> {
    return toDeletionResponse(await this.deletions.latest(key));
  }

  @Delete('deletion')
  @Route({
    auth: 'account-key',
    summary: 'Cancel a scheduled deletion (admin)',
    description: 'Possible until the purge starts.',
    duringDeletion: true,
    ok: AccountDeletionResponseDto,
    problems: [404, 409],
    admin: true,
  })
  async cancelAccountDeletion(@CurrentKey() key: KeyPrincipal): Promise<AccountDeletionResponseDto> {
    return toDeletionResponse(await this.deletions.cancel(key));
  }

  @Get('deletion-preview')
  @Route({
    auth: 'account-key',
    summary: 'Get deletion preview',
    description: 'Counts, per resource, what deleting the account would remove, cancel, forfeit or anonymise.',
    ok: DeletionPreviewResponseDto,
  })
  async getAccountDeletionPreview(@CurrentKey() key: KeyPrincipal): Promise<DeletionPreviewResponseDto> {
    const { gracePeriodSeconds, impacts } = await this.deletions.preview(key);
    return toPreviewResponse(gracePeriodSeconds, impacts);
  }
}
