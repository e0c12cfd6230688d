import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { sql } from '../database/sql';
import {
  applyKeysetShape,
  KeysetColumn,
  keysetPage,
  keysetParameters,
  keysetShape,
  Page,
} from '../common/pagination/page';
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

/** A message to record: what the sender decided; the database adds the rest (queued, 0 attempts, times). */
export type NewMessage = Pick<
  EmailMessageEntity,
  | 'siteId'
  | 'batchId'
  | 'recipient'
  | 'recipientKind'
  | 'fromHeader'
  | 'replyTo'
  | 'toHeader'
  | 'ccHeader'
  | 'subject'
  | 'html'
  | 'text'
  | 'templateId'
  | 'templateType'
  | 'tags'
  | 'extraHeaders'
  | 'sealedSecrets'
  | 'source'
  | 'sourceId'
  | 'sourceItemId'
> & {
  /** Set: the address is suppressed (docs/deliverability.md); the copy is recorded `failed` with this reason, never sent. */
  suppressed?: string;
};

/**
 * The email lists and gets, on the fast read path (docs/performance.md): newest first by id,
 * over indexes (site_id, id), (site_id, type, id) and (site_id, status, id).
 */
@Injectable()
export class EmailRepository {
  private readonly templateList = new ShapedReads<EmailTemplateEntity>();
  private readonly templateOne = new ShapedReads<EmailTemplateEntity>();
  private readonly publishedTemplate = new ShapedReads<EmailTemplateEntity>();
  private readonly messageList = new ShapedReads<EmailMessageEntity>();
  private readonly messageOne = new ShapedReads<EmailMessageEntity>();

  constructor(
    @InjectRepository(EmailTemplateEntity) private readonly templateRows: Repository<EmailTemplateEntity>,
    @InjectRepository(EmailMessageEntity) private readonly messageRows: Repository<EmailMessageEntity>,
  ) {}

  async listTemplates(site: SiteContext, query: EmailTemplateQueryDto): Promise<Page<EmailTemplateEntity>> {
    const params = { siteId: site.id, type: query.type, status: query.status, ...keysetParameters(BY_ID, query) };
    const shape = { ...keysetShape(query), type: Boolean(query.type), status: Boolean(query.status) };
    const { entities } = await this.templateList.read(shape, params, (s) => {
      const qb = this.templateRows.createQueryBuilder('x').where('x.site_id = :siteId');
      if (s.type) qb.andWhere('x.type = :type');
      if (s.status) qb.andWhere('x.status = :status');
      return applyKeysetShape(qb, BY_ID, s);
    });
    return keysetPage(entities, query.limit, (t) => [t.id]);
  }

  async findTemplate(site: SiteContext, id: number): Promise<EmailTemplateEntity | undefined> {
    const { entities } = await this.templateOne.read({}, { siteId: site.id, id }, () =>
      this.templateRows.createQueryBuilder('x').where('x.site_id = :siteId').andWhere('x.id = :id').limit(1),
    );
    return entities[0];
  }

  async findPublished(site: SiteContext, type: string): Promise<EmailTemplateEntity | undefined> {
    const { entities } = await this.publishedTemplate.read({}, { siteId: site.id, type }, () =>
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
    const shape = { ...keysetShape(query), status: Boolean(query.status) };
    const { entities } = await this.messageList.read(shape, params, (s) => {
      const qb = this.messageRows
        .createQueryBuilder('x')
        .select(MESSAGE_SUMMARY.map((c) => `x.${c}`))
        .where('x.site_id = :siteId');
      if (s.status) qb.andWhere('x.status = :status');
      return applyKeysetShape(qb, BY_ID, s);
    });
    return keysetPage(entities, query.limit, (m) => [m.id]);
  }

  async findMessage(site: SiteContext, id: number): Promise<EmailMessageEntity | undefined> {
    const { entities } = await this.messageOne.read({}, { siteId: site.id, id }, () =>
      this.messageRows.createQueryBuilder('x').where('x.site_id = :siteId').andWhere('x.id = :id').limit(1),
    );
    return entities[0];
  }

  /**
   * Records messages in one INSERT (an array a column, unnested in order), queued: a campaign
   * batch writes hundreds of rendered copies, and TypeORM's save of as many entities cost more
   * CPU than rendering them. Answers the entities, in the order given, with their ids and times.
   * A batch of big copies is split so that no statement carries more than INSERT_CHARS of HTML
   * and text: pg writes a statement's array literals in one synchronous step, and 500 copies
   * of a 200 KB campaign held the event loop (every tenant's requests) for 4 s.
   */
  async insertMessages(em: EntityManager, rows: NewMessage[]): Promise<EmailMessageEntity[]> {
    const saved: EmailMessageEntity[] = [];
    for (const chunk of byWeight(rows, (r) => (r.html?.length ?? 0) + (r.text?.length ?? 0), INSERT_CHARS))
      saved.push(...(await this.insertChunk(em, chunk)));
    return saved;
  }

  private async insertChunk(em: EntityManager, rows: NewMessage[]): Promise<EmailMessageEntity[]> {
    if (rows.length === 0) return [];
    const col = <K extends keyof NewMessage>(key: K) => rows.map((r) => r[key]);
    const { rows: made } = await sql<{ id: number; created_at: Date }>(
      em,
      `INSERT INTO email_messages (site_id, batch_id, recipient, recipient_kind, from_header, reply_to, to_header,
         cc_header, subject, html, text, template_id, template_type, tags, extra_headers, sealed_secrets, status,
         error, failed_at, source, source_id, source_item_id)
       SELECT u.site_id, u.batch_id, u.recipient, u.recipient_kind, u.from_header, u.reply_to, u.to_header,
              u.cc_header, u.subject, u.html, u.text, u.template_id, u.template_type,
              ARRAY(SELECT jsonb_array_elements_text(u.tags)), u.extra_headers,
              CASE WHEN u.suppressed IS NULL THEN u.sealed_secrets END,
              CASE WHEN u.suppressed IS NULL THEN 'queued' ELSE 'failed' END, u.suppressed,
              CASE WHEN u.suppressed IS NULL THEN NULL ELSE now() END, u.source, u.source_id, u.source_item_id
         FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                     $9::text[], $10::text[], $11::text[], $12::bigint[], $13::text[], $14::jsonb[], $15::jsonb[],
                     $16::text[], $17::text[], $18::text[], $19::bigint[], $20::bigint[])
              WITH ORDINALITY AS u(site_id, batch_id, recipient, recipient_kind, from_header, reply_to, to_header,
                                   cc_header, subject, html, text, template_id, template_type, tags, extra_headers,
                                   suppressed, sealed_secrets, source, source_id, source_item_id, n)
        ORDER BY u.n
       RETURNING id, created_at`,
      [
        col('siteId'),
        col('batchId'),
        col('recipient'),
        col('recipientKind'),
        col('fromHeader'),
        col('replyTo'),
        col('toHeader'),
        col('ccHeader'),
        col('subject'),
        col('html'),
        col('text'),
        col('templateId'),
        col('templateType'),
        rows.map((r) => JSON.stringify(r.tags)),
        rows.map((r) => (r.extraHeaders ? JSON.stringify(r.extraHeaders) : null)),
        rows.map((r) => r.suppressed ?? null),
        // A copy never sent (suppressed) keeps no secret.
        col('sealedSecrets'),
        col('source'),
        col('sourceId'),
        col('sourceItemId'),
      ],
      { bigints: ['id'] },
    );
    // Ids are drawn in the order the rows were inserted (ORDER BY u.n): ascending ids match the input.
    made.sort((a, b) => a.id - b.id);
    return rows.map(({ suppressed, sealedSecrets, ...r }, i) =>
      Object.assign(new EmailMessageEntity(), r, {
        sealedSecrets: suppressed ? null : sealedSecrets,
        id: made[i].id,
        status: suppressed ? ('failed' as const) : ('queued' as const),
        attempts: 0,
        claimedAt: null,
        smtpMessageId: null,
        smtpResponse: null,
        error: suppressed ?? null,
        sentAt: null,
        failedAt: suppressed ? made[i].created_at : null,
        bodyDroppedAt: null,
        createdAt: made[i].created_at,
        updatedAt: made[i].created_at,
      }),
    );
  }

  /** The account's mails queued or being sent, counted up to `atMost` (each site's unsent rows by index). */
  async unsentOfAccount(accountId: number, atMost: number): Promise<number> {
    const { rows } = await sql<{ n: number }>(
      this.messageRows.manager,
      `SELECT count(*)::int AS n FROM (
         SELECT 1 FROM sites s JOIN email_messages m ON m.site_id = s.id AND m.status IN ('queued', 'sending')
          WHERE s.account_id = $1 LIMIT $2) u`,
      [accountId, atMost],
    );
    return rows[0].n;
  }
}

/** Characters of HTML and text one INSERT of messages carries at most (one copy always fits). */
export const INSERT_CHARS = 4_000_000;

/** `items` in consecutive runs whose weights add up to at most `max` (an item heavier than `max` runs alone). */
export function byWeight<T>(items: readonly T[], weigh: (item: T) => number, max: number): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  let weight = 0;
  for (const item of items) {
    const w = weigh(item);
    if (run.length > 0 && weight + w > max) {
      runs.push(run);
      run = [];
      weight = 0;
    }
    run.push(item);
    weight += w;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}
