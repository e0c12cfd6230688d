import { EntityManager } from 'typeorm';
import { CampaignEntity, CampaignLinkEntity } from '../entities/campaign.entity';
import { CampaignEventPayload } from '../newsletter.events';
import { mergeLinks } from './campaign-content';

/** A campaign's event payload (scheduled, paused, canceled, sent). */
export function campaignPayload(c: CampaignEntity): CampaignEventPayload {
  return {
    id: c.id,
    slug: c.slug,
    status: c.status,
    scheduledAt: c.scheduledAt?.toISOString() ?? null,
    sent: c.recipientCount,
  };
}

/** Indexes the campaign's links (new ones appended; known ones keep theirs) before a send runs. */
export async function syncLinks(em: EntityManager, c: CampaignEntity): Promise<void> {
  const known = await em.find(CampaignLinkEntity, { where: { campaignId: c.id }, order: { linkIndex: 'ASC' } });
  const all = mergeLinks(
    known.map((l) => l.url),
    c.contentHtml,
  );
  const fresh = all
    .slice(known.length)
    .map((url, i) =>
      em.create(CampaignLinkEntity, { campaignId: c.id, linkIndex: known.length + i, siteId: c.siteId, url }),
    );
  if (fresh.length > 0) await em.insert(CampaignLinkEntity, fresh);
}
