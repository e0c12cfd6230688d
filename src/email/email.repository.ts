import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { applyKeyset, KeysetColumn, keysetPage, keysetParameters, Page } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { ShapedReads } from '../database/fast-read';
import { EmailMessageQueryDto } from './dto/email-message.dto';
import { EmailTemplateQueryDto } from './dto/email-template.dto';
import { EmailMessageEntity } from './entities/email-message.entity';
import { EmailTemplateEntity } from './entities/email-template.entity';

const BY_ID: KeysetColumn[] = [{ expr: 'x.id', type: 'number' }];

/** Message columns a list shows: everything but the bodies. */
const MESSAGE_SUMMARY: Array<keyof EmailMessageEntity> = [
  'id',
  'siteId',
  'batchId',
  'recipient',
  'recipientKind',
  'subject',
  'templateId',
  'templateType',
  'tags',
  'status',
  'attempts',
  'smtpResponse',
  'smtpMessageId',
  'error',
  'sentAt',
  'failedAt',
  'createdAt',
];

/**
 * The email lists and gets, on the fast read path (docs/performance.md): newest first by id,
 * over indexes (site_id, id), (site_id, type, id) and (site_id, status, id).
 */
@Injectable()
export class EmailRepository {
  private readonly templates = new ShapedReads<EmailTemplateEntity>();
  private readonly messages = new ShapedReads<EmailMessageEntity>();

  constructor(
    @InjectRepository(EmailTemplateEntity) private readonly templateRows: Repository<EmailTemplateEntity>,
    @InjectRepository(EmailMessageEntity) private readonly messageRows: Repository<EmailMessageEntity>,
  ) {}

  async listTemplates(site: SiteContext, query: EmailTemplateQueryDto): Promise<Page<EmailTemplateEntity>> {
    const params = { siteId: site.id, type: query.type, status: query.status, ...keysetParameters(BY_ID, query) };
    const shape = `${query.type ? 1 : 0}${query.status ? 1 : 0}${query.cursor ? 1 : 0}:${query.limit}`;
    const { entities } = await this.templates.read(shape, params, () => {
      const qb = this.templateRows.createQueryBuilder('x').where('x.site_id = :siteId');
      if (query.type) qb.andWhere('x.type = :type');
      if (query.status) qb.andWhere('x.status = :status');
      return applyKeyset(qb, BY_ID, query);
    });
    return keysetPage(entities, query.limit, (t) => [t.id]);
  }

  async findTemplate(site: SiteContext, id: number): Promise<EmailTemplateEntity | undefined> {
    const { entities } = await this.templates.read('one', { siteId: site.id, id }, () =>
      this.templateRows.createQueryBuilder('x').where('x.site_id = :siteId').andWhere('x.id = :id').limit(1),
    );
    return entities[0];
  }

  async findPublished(site: SiteContext, type: string): Promise<EmailTemplateEntity | undefined> {
    const { entities } = await this.templates.read('published', { siteId: site.id, type }, () =>
      this.templateRows
        .createQueryBuilder('x')
        .where('x.site_id = :siteId')
        .andWhere('x.type = :type')
        .andWhere("x.status = 'published'")
        .limit(1),
    );
    return entities[0];
  }

  async listMessages(site: SiteContext, query: EmailMessageQueryDto): Promise<Page<EmailMessageEntity>> {
    const params = { siteId: site.id, status: query.status, ...keysetParameters(BY_ID, query) };
    const shape = `${query.status ? 1 : 0}${query.cursor ? 1 : 0}:${query.limit}`;
    const { entities } = await this.messages.read(shape, params, () => {
      const qb = this.messageRows
        .createQueryBuilder('x')
        .select(MESSAGE_SUMMARY.map((c) => `x.${c}`))
        .where('x.site_id = :siteId');
      if (query.status) qb.andWhere('x.status = :status');
      return applyKeyset(qb, BY_ID, query);
    });
    return keysetPage(entities, query.limit, (m) => [m.id]);
  }

  async findMessage(site: SiteContext, id: number): Promise<EmailMessageEntity | undefined> {
    const { entities } = await this.messages.read('one', { siteId: site.id, id }, () =>
      this.messageRows.createQueryBuilder('x').where('x.site_id = :siteId').andWhere('x.id = :id').limit(1),
    );
    return entities[0];
  }
}
