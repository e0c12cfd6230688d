import { AccountDeletionEntity } from '../../src/account/entities/account-deletion.entity';
import { EmailMessageEntity } from '../../src/email/entities/email-message.entity';
import { EmailTemplateEntity } from '../../src/email/entities/email-template.entity';
import { eventually } from '../support/app';
import { Tenant, withTenants } from '../support/tenant';

/** Account deletion covers the site's templates and the record of its mail. */
describe('email data in an account deletion', () => {
  const ctx = withTenants(2, { env: { ACCOUNT_DELETION_GRACE_SECONDS: '0' } });

  async function mailOf(x: Tenant): Promise<void> {
    const site = `/api/v2/sites/${x.siteName}/email`;
    await x.api
      .post(`${site}/templates`)
      .send({ type: 'custom', name: 'T', subject: '{{ subject }}', html: '{{ body }}' })
      .expect(201);
    await x.api
      .post(`${site}/send`)
      .send({ to: [{ email: 'a@example.com' }], subject: 'S', text: 'T' })
      .expect(202);
  }

  it('the preview counts them and the purge removes them, and only them', async () => {
    const [x, other] = ctx.tenants;
    await Promise.all([mailOf(x), mailOf(other)]);
    const preview = await x.api.get('/api/v2/account/deletion-preview').expect(200);
    expect(preview.body.resources).toEqual(
      expect.arrayContaining([
        { resource: 'email_templates', action: 'delete', count: 1 },
        { resource: 'email_messages', action: 'delete', count: 1 },
      ]),
    );
    const scheduled = await x.api.delete('/api/v2/account').expect(202);
    const done = await eventually(async () => {
      const row = await ctx.t.db.getRepository(AccountDeletionEntity).findOneByOrFail({ id: scheduled.body.id });
      return row.status === 'completed' ? row : undefined;
    });
    expect(done.summary).toEqual(expect.objectContaining({ email_templates: 1, email_messages: 1 }));
    const templates = ctx.t.db.getRepository(EmailTemplateEntity);
    const messages = ctx.t.db.getRepository(EmailMessageEntity);
    expect([await templates.countBy({ siteId: x.siteId }), await messages.countBy({ siteId: x.siteId })]).toEqual([
      0, 0,
    ]);
    expect([
      await templates.countBy({ siteId: other.siteId }),
      await messages.countBy({ siteId: other.siteId }),
    ]).toEqual([1, 1]);
  });
});
