import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountModule } from '../account/account.module';
import { SendersModule } from '../senders/senders.module';
import { BUILTIN_TEMPLATE_TYPES } from './builtin-template-types';
import { EmailDataOwner } from './email-data.owner';
import { EmailErasureOwner } from './email-erasure.owner';
import { EmailDeliveryJob } from './email-delivery.job';
import { EmailRenderer } from './email-renderer';
import { EmailTemplatesController } from './email-templates.controller';
import { EmailTemplatesService } from './email-templates.service';
import { EmailTransport } from './email-transport';
import { EmailVariables } from './email-variables';
import { EmailController } from './email.controller';
import { EmailRepository } from './email.repository';
import { EmailTemplatesRepository } from './email-templates.repository';
import { EmailErasureRepository } from './email-erasure.repository';
import { EmailDeliveryRepository } from './email-delivery.repository';
import { MailSources } from './mail-sources';
import { MailComposer } from './mail-composer';
import { MailBodies } from './mail-bodies';
import { EmailRetention } from './email-retention';
import { EmailRetentionRepository } from './email-retention.repository';
import { EmailService } from './email.service';
import { EmailMessageEntity } from './entities/email-message.entity';
import { EmailTemplateEntity } from './entities/email-template.entity';
import { EmailBounceEntity, EmailSuppressionEntity, ServerSecretEntity } from './entities/email-bounce.entity';
import { BounceListener } from './bounces/bounce-listener';
import { BouncesRepository } from './bounces/bounces.repository';
import { BouncesService } from './bounces/bounces.service';
import { ProviderEventsController } from './bounces/provider-events.controller';
import { ProviderEventsService } from './bounces/provider-events.service';
import { SuppressionHooks } from './bounces/suppression-hooks';
import { SuppressionsController } from './bounces/suppressions.controller';
import { SuppressionsRepository } from './bounces/suppressions.repository';
import { SuppressionsService } from './bounces/suppressions.service';
import { EmailTemplateTypes } from './template-types';
import { AnswersProblems } from '../common/errors/problem-codes';
import { EMAIL_PROBLEMS } from './email.problems';

/**
 * Mail for every module (docs/email.md): template types, templates per site, rendering, and
 * delivery over SMTP. Other modules import this module and call EmailService.send() inside
 * their transaction; they register their template types with EmailTemplateTypes, and what
 * they do when an address is suppressed with SuppressionHooks (docs/deliverability.md).
 */
@AnswersProblems(EMAIL_PROBLEMS)
@Module({
  imports: [
    TypeOrmModule.forFeature([
      EmailTemplateEntity,
      EmailMessageEntity,
      EmailBounceEntity,
      EmailSuppressionEntity,
      ServerSecretEntity,
    ]),
    AccountModule,
    SendersModule,
  ],
  controllers: [EmailTemplatesController, EmailController, SuppressionsController, ProviderEventsController],
  providers: [
    EmailTemplateTypes,
    MailSources,
    MailComposer,
    MailBodies,
    EmailRetention,
    EmailRetentionRepository,
    EmailRenderer,
    EmailVariables,
    EmailRepository,
    EmailTemplatesRepository,
    EmailDeliveryRepository,
    EmailErasureRepository,
    EmailTemplatesService,
    EmailTransport,
    EmailService,
    EmailDeliveryJob,
    EmailDataOwner,
    EmailErasureOwner,
    SuppressionHooks,
    BouncesRepository,
    BouncesService,
    BounceListener,
    SuppressionsRepository,
    SuppressionsService,
    ProviderEventsService,
  ],
  exports: [
    EmailService,
    EmailTemplateTypes,
    MailSources,
    EmailTemplatesService,
    SuppressionHooks,
    SuppressionsService,
  ],
})
export class EmailModule implements OnModuleInit {
  constructor(private readonly types: EmailTemplateTypes) {}

  onModuleInit(): void {
    for (const type of BUILTIN_TEMPLATE_TYPES) this.types.register(type);
  }
}
