import { Injectable, Logger } from '@nestjs/common';
import { isIP } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { DataSource, EntityManager } from 'typeorm';
import { SitesService } from '../account/sites.service';
import { NotFoundProblem } from '../common/errors/problems';
import { recordEvent } from '../common/outbox/record-event';
import { Page } from '../common/pagination/page';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { EmailService } from '../email/email.service';
import { CONTACT_RECEIVED_MAIL } from './contacts-mail-types';
import { CONTACT_EVENTS, ContactEventPayload } from './contacts.events';
import { ContactsRepository } from './contacts.repository';
import { ContactQueryDto, CreateContactDto, UpdateContactDto } from './dto/contact.dto';
import { ContactEntity } from './entities/contact.entity';

export { CONTACT_STATUSES, type ContactStatus } from './entities/contact.entity';

/** Who sent a message, as the server saw them (kept for abuse handling; operators only). */
export interface ContactSender {
  clientIp: string | null;
  userAgent: string | null;
}

/** What a submission answers: when it arrived, and the stored contact (null for a honeypot hit). */
export interface ContactReceipt {
  receivedAt: Date;
  contact: ContactEntity | null;
}

/** User agents are kept to this many characters. */
export const USER_AGENT_MAX = 500;

/** Fields an operator may change, in the order they are compared. */
const EDITABLE = ['status', 'tags', 'metadata', 'name', 'email', 'phone', 'company', 'subject'] as const;

/**
 * The contact inbox of a site (docs/contacts.md): anyone submits through the site's form, the
 * team is told by mail, operators with a key read and triage.
 */
@Injectable()
export class ContactsService {
  private readonly logger = new Logger('Contacts');

  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: ContactsRepository,
    private readonly email: EmailService,
    private readonly sites: SitesService,
  ) {}

  list(site: SiteContext, query: ContactQueryDto): Promise<Page<ContactEntity>> {
    return this.repository.list(site, query);
  }

  async get(site: SiteContext, id: number): Promise<ContactEntity> {
    const found = await this.repository.find(site, id);
    if (!found) throw new NotFoundProblem('Contact');
    return found;
  }

  /**
   * Stores a submission (status `new`), records `contact.created` and queues the team's mail, in
   * one transaction. A filled honeypot (`website`) stores and sends nothing, and answers alike.
   */
  async create(site: SiteContext, dto: CreateContactDto, sender: ContactSender): Promise<ContactReceipt> {
    if (isHoneypotHit(dto)) return { receivedAt: new Date(), contact: null };
    return this.dataSource.transaction(async (em) => {
      const contact = await em.save(
        em.create(ContactEntity, {
          siteId: site.id,
          name: dto.name,
          email: dto.email,
          phone: dto.phone ?? null,
          company: dto.company ?? null,
          subject: dto.subject ?? null,
          message: dto.message,
          source: dto.source ?? 'contact-form',
          status: 'new',
          tags: dto.tags ?? [],
          metadata: dto.metadata ?? {},
          // Behind a proxy trusted with `true`, req.ip is the client's own X-Forwarded-For entry,
          // which may be any text: only an address is kept (the column is inet).
          clientIp: sender.clientIp !== null && isIP(sender.clientIp) !== 0 ? sender.clientIp : null,
          userAgent: sender.userAgent === null ? null : sender.userAgent.slice(0, USER_AGENT_MAX),
        }),
      );
      await recordEvent(em, site, CONTACT_EVENTS.created, eventPayload(contact));
      await this.notify(em, site, contact);
      return { receivedAt: contact.createdAt, contact };
    });
  }

  /** Changes what the DTO gives; a PATCH that changes nothing records no event. */
  update(site: SiteContext, id: number, dto: UpdateContactDto): Promise<ContactEntity> {
    return this.dataSource.transaction(async (em) => {
      const contact = await findInSiteOrFail(em, ContactEntity, site, id, 'Contact', { lock: true });
      const previousStatus = contact.status;
      let changed = false;
      for (const field of EDITABLE) {
        const value = dto[field];
        if (value === undefined || isDeepStrictEqual(contact[field], value)) continue;
        (contact as unknown as Record<string, unknown>)[field] = value;
        changed = true;
      }
      if (!changed) return contact;
      const saved = await em.save(contact);
      await recordEvent(em, site, CONTACT_EVENTS.updated, { ...eventPayload(saved), previousStatus });
      return saved;
    });
  }

  /**
   * Erases a person from the site's inbox, in the caller's transaction (the users module's
   * erasure calls it): every contact sent from `email` (any case) is deleted, not anonymised, as
   * its message is itself personal data. Records no event: the contact events never carried the
   * person's data. Answers how many were deleted.
   */
  eraseByEmail(em: EntityManager, site: SiteContext, email: string): Promise<number> {
    return this.repository.deleteByEmail(em, site.id, email.toLowerCase());
  }

  /**
   * Mails the addresses of the site's `contacts.notifyEmails` (none: no mail), with Reply-To set
   * to the sender. In a savepoint: a mail that cannot be made (a site template that fails to
   * render) is logged and the message is kept, rather than refusing the sender.
   */
  private async notify(em: EntityManager, site: SiteContext, contact: ContactEntity): Promise<void> {
    const { settings } = await this.sites.profileOf(site.id, em);
    const to = settings.contacts?.notifyEmails ?? [];
    if (to.length === 0) return;
    const optional = { subject: contact.subject, phone: contact.phone, company: contact.company };
    const failed = await this.repository.inSavepoint(em, () =>
      this.email.send(em, site, {
        to: to.map((address) => ({ email: address })),
        replyTo: { email: contact.email, name: contact.name },
        templateType: CONTACT_RECEIVED_MAIL,
        data: {
          name: contact.name,
          email: contact.email,
          message: contact.message,
          submittedAt: contact.createdAt.toISOString(),
          source: contact.source,
          contactId: contact.id,
          ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== null)),
        },
        tags: ['contacts'],
      }),
    );
    if (failed)
      this.logger.error(
        `Contact ${contact.id} of site ${site.name} was stored, but its notification mail failed: ${
          failed instanceof Error ? failed.message : JSON.stringify(failed)
        }`,
      );
  }
}

/** The honeypot field holds something other than blanks: a bot filled in what people never see. */
function isHoneypotHit(dto: CreateContactDto): boolean {
  return dto.website !== undefined && dto.website.trim() !== '';
}

function eventPayload(c: ContactEntity): ContactEventPayload {
  return { id: c.id, status: c.status, source: c.source, tags: c.tags };
}
