import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { MailInput } from './mail-input';

/** Where a copy recorded without a body gets it: an item (a subscription) of a source's thing (a campaign). */
export interface MailSourceRef {
  /** The source's name, as registered (`newsletter.campaign`). */
  name: string;
  id: number;
  itemId: number;
}

/** A copy a source can no longer make, and why (its campaign was deleted). */
export interface GoneCopy {
  gone: string;
}

/**
 * A module whose mails are the same body for many recipients, rendered per recipient (a
 * campaign): its copies are recorded without a body (docs/email.md, "What is stored") and the
 * email module asks it for each copy's mail when the copy is sent or shown. `mails` answers, for
 * each item in the order given, the mail as `EmailService.send` takes it (its template, data,
 * headers and secrets), rendered from what the source holds now; or why it cannot.
 */
export interface MailSource {
  name: string;
  mails(em: EntityManager, siteId: number, id: number, itemIds: number[]): Promise<Array<MailInput | GoneCopy>>;
}

/** The registered sources (a module registers its own in onModuleInit, like its template types). */
@Injectable()
export class MailSources {
  private readonly sources = new Map<string, MailSource>();

  register(source: MailSource): void {
    if (this.sources.has(source.name)) throw new Error(`Mail source ${source.name} is registered twice`);
    this.sources.set(source.name, source);
  }

  find(name: string): MailSource | undefined {
    return this.sources.get(name);
  }
}

export function isGone(copy: MailInput | GoneCopy): copy is GoneCopy {
  return 'gone' in copy;
}
