import { Injectable } from '@nestjs/common';
import { NotFoundProblem } from '../common/errors/problems';
import { checkSecretMarks } from './mail-secrets';

/**
 * A JSON Schema (draft 2020-12 subset) of the variables a template of a type receives. A
 * top-level string variable that grants access (a code, a link with a token) says `secret: true`:
 * stored copies show `[redacted:<name>]` in its place (mail-secrets.ts).
 */
export interface VariablesSchema {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties?: boolean;
}

/** The default a site uses until it publishes its own template of the type. */
export interface DefaultTemplate {
  subject: string;
  html: string;
  /** Absent: the text part is made from the HTML. */
  text?: string;
}

/**
 * A kind of mail a module sends (docs/email.md): what it is for, the variables its templates
 * receive, sample data for previews, and the built-in template.
 */
export interface EmailTemplateType {
  /** `<module>.<purpose>`, e.g. `users.otp`; `custom` for the email module's own. */
  type: string;
  /** The module that sends it. */
  module: string;
  description: string;
  variables: VariablesSchema;
  sample: Record<string, unknown>;
  defaultTemplate: DefaultTemplate;
  /**
   * A mail whose words and links only its module writes: sites cannot make a template of it (its
   * default is always sent), and the API's send cannot send it. For a mail a tenant must not be
   * able to reword or to make leak its link (the newsletter's re-consent after a complaint).
   */
  fixed?: true;
}

/** `<module>.<purpose>`, or one word for the email module's own (`custom`). */
export const TEMPLATE_TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;

/**
 * Every template type of the installation. Modules register theirs at start (onModuleInit),
 * like account-data owners; the email module checks templates and sends against them.
 */
@Injectable()
export class EmailTemplateTypes {
  private readonly types = new Map<string, EmailTemplateType>();

  register(definition: EmailTemplateType): void {
    if (!TEMPLATE_TYPE_PATTERN.test(definition.type))
      throw new Error(`Template type ${definition.type}: not <module>.<purpose>`);
    if (this.types.has(definition.type)) throw new Error(`Template type ${definition.type} is registered twice`);
    checkSecretMarks(definition);
    this.types.set(definition.type, Object.freeze(definition));
  }

  /** Sorted by name. */
  all(): EmailTemplateType[] {
    return [...this.types.values()].sort((a, b) => a.type.localeCompare(b.type));
  }

  find(type: string): EmailTemplateType | undefined {
    return this.types.get(type);
  }

  get(type: string): EmailTemplateType {
    const found = this.types.get(type);
    if (!found) throw new NotFoundProblem(`Template type ${type}`, 'template_type_not_found');
    return found;
  }
}
