import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SitesService } from '../account/sites.service';
import { Problem } from '../common/errors/problems';
import { TimeSlice } from '../common/scheduling/time-slice';
import { MailComposer, TemplateLookups } from './mail-composer';
import { checkHeaders } from './mail-input';
import { MailSecretValues, revealCopy } from './mail-secrets';
import type { EmailMessageEntity } from './entities/email-message.entity';
import { isGone, MailSources } from './mail-sources';

/** Where a message's body comes from, as its answer says (`bodyStatus`). */
export const BODY_STATUSES = ['stored', 'rendered', 'dropped', 'unavailable'] as const;
export type BodyStatus = (typeof BODY_STATUSES)[number];

/** A message as an operator reads it: the row and its body. */
export interface ShownMessage {
  message: EmailMessageEntity;
  body: { status: BodyStatus; html: string | null; text: string | null; headers: Record<string, string> };
}

/** A copy recorded without a body: what names its source. */
export interface SourcedCopy {
  siteId: number;
  subject: string;
  source: string | null;
  sourceId: number | null;
  sourceItemId: number | null;
}

/** A copy's body as rendered from its source, its secrets shown as placeholders. */
export interface SourcedBody {
  html: string;
  text: string;
  headers: Record<string, string> | null;
  secrets: MailSecretValues | null;
}

/** Why a copy's body could not be made (its campaign was deleted, its template does not render). */
export interface NoBody {
  error: string;
}

/**
 * The bodies of copies recorded without one (docs/email.md, "What is stored"): each source is
 * asked once per thing (a campaign) for its items' mails, which are made as a send makes them
 * (MailComposer), with the site's template as it is now. The delivery job fills the secrets in
 * (`revealed`); an operator's read shows the placeholders.
 */
@Injectable()
export class MailBodies {
  private readonly logger = new Logger('Email');

  constructor(
    private readonly sources: MailSources,
    private readonly composer: MailComposer,
    private readonly sites: SitesService,
  ) {}

  /** Each copy's body, in the order given; copies with a stored body are not given. */
  async render(em: EntityManager, copies: SourcedCopy[]): Promise<Array<SourcedBody | NoBody>> {
    const out: Array<SourcedBody | NoBody> = copies.map(() => ({ error: 'its body could not be made' }));
    const groups = new Map<string, number[]>();
    for (const [i, c] of copies.entries()) {
      const key = `${c.siteId}\u0000${c.source}\u0000${c.sourceId}`;
      const group = groups.get(key) ?? [];
      group.push(i);
      groups.set(key, group);
    }
    const slice = new TimeSlice();
    for (const indexes of groups.values()) {
      const first = copies[indexes[0]];
      const source = first.source ? this.sources.find(first.source) : undefined;
      const site = await this.sites.findById(first.siteId);
      if (!source || !site || first.sourceId === null) {
        for (const i of indexes) out[i] = { error: 'its body could not be made: its source is gone' };
        continue;
      }
      const { title } = await this.sites.profileOf(site.id, em);
      const lookups: TemplateLookups = new Map();
      const mails = await source.mails(
        em,
        site.id,
        first.sourceId,
        indexes.map((i) => copies[i].sourceItemId!),
      );
      for (const [n, i] of indexes.entries()) {
        await slice.next();
        const mail = mails[n];
        if (isGone(mail)) {
          out[i] = { error: `its body could not be made: ${mail.gone}` };
          continue;
        }
        try {
          const { rendered, secrets } = await this.composer.compose(
            em,
            site,
            title,
            { ...mail, source: undefined },
            lookups,
          );
          out[i] = {
            html: rendered.html,
            text: rendered.text,
            headers: mail.headers ? checkHeaders(mail.headers) : null,
            secrets,
          };
        } catch (err) {
          if (!(err instanceof Problem))
            this.logger.error({ err, siteId: site.id, source: first.source }, 'A copy did not render');
          const why =
            err instanceof Problem ? (err.errors?.[0]?.message ?? err.detail ?? err.title) : 'it did not render';
          out[i] = { error: `its body could not be made: ${why}` };
        }
      }
    }
    return out;
  }

  /** The copy as its recipient gets it: the stored subject and the body, each secret filled in. */
  revealed(copy: { subject: string }, body: SourcedBody) {
    return revealCopy(
      { subject: copy.subject, html: body.html, text: body.text, headers: body.headers },
      body.secrets ?? {},
    );
  }
}

export function noBody(body: SourcedBody | NoBody): body is NoBody {
  return 'error' in body;
}
