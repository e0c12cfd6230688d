import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { EmailTemplateEntity } from './entities/email-template.entity';

/** The template writes that outgrow a method (docs/modules.md); the reads are in email.repository.ts. */
@Injectable()
export class EmailTemplatesRepository {
  /** Sends the site's published template of a type back to draft (a new version of it). */
  async unpublishType(em: EntityManager, siteId: number, type: string): Promise<void> {
    await em
      .createQueryBuilder()
      .update(EmailTemplateEntity)
      .set({ status: 'draft', version: () => 'version + 1' })
      .where("site_id = :siteId AND type = :type AND status = 'published'", { siteId, type })
      .execute();
  }
}
