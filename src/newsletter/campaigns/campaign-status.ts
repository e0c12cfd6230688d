import { ConflictProblem } from '../../common/errors/problems';
import type { CampaignStatus } from '../entities/campaign.entity';

/**
 * API.md §5: `draft ⇄ scheduled → sending ⇄ paused → sent`, `draft|scheduled|paused → canceled`.
 * `scheduled → sending` and `sending → sent` are the send's own moves (its job); a caller asks
 * for the others with PATCH `status`. Anything else is a 409 and nothing changes.
 */
const BY_CALLER: Record<CampaignStatus, readonly CampaignStatus[]> = {
  draft: ['scheduled', 'canceled'],
  scheduled: ['draft', 'canceled'],
  sending: ['paused'],
  paused: ['sending', 'canceled'],
  sent: [],
  canceled: [],
};

/** States whose content (subject, body, audience, sender) may still change. */
export const EDITABLE_STATUSES: readonly CampaignStatus[] = ['draft', 'scheduled', 'paused'];

export function callerMayMove(from: CampaignStatus, to: CampaignStatus): boolean {
  return BY_CALLER[from].includes(to);
}

export function assertCampaignMove(from: CampaignStatus, to: CampaignStatus): void {
  if (!callerMayMove(from, to))
    throw new ConflictProblem('transition_forbidden', `A ${from} campaign cannot become ${to}`);
}

export function assertEditable(status: CampaignStatus): void {
  if (!EDITABLE_STATUSES.includes(status))
    throw new ConflictProblem('campaign_not_editable', `A ${status} campaign can no longer be edited`);
}
