import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { EmailMessageEntity } from './entities/email-message.entity';
import { EmailTemplateEntity } from './entities/email-template.entity';
import { EmailBounceEntity, EmailSuppressionEntity } from './entities/email-bounce.entity';

/** Account deletion: the templates of the account's sites, the record of their mail, its bounces and suppressions. */
@Injectable()
export class EmailDataOwner implements OnModuleInit {
  constructor(private readonly registry: AccountDataRegistry) {}

  onModuleInit(): void {
    // Before sites.
    this.registry.register(
      tablesOwner('email', 300, [
        { resource: 'email_bounces', entity: EmailBounceEntity },
        { resource: 'email_suppressions', entity: EmailSuppressionEntity },
        { resource: 'email_messages', entity: EmailMessageEntity },
        { resource: 'email_templates', entity: EmailTemplateEntity },
      ]),
    );
  }
}
