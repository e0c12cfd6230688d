import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import { SiteNameParamDto } from '../../common/http/params';
import { type EmailTemplateType, TEMPLATE_TYPE_PATTERN } from '../template-types';

export { TEMPLATE_TYPE_PATTERN };
const TYPE_MESSAGE = 'must be a template type such as users.otp';

/** `:templateType` (with the site). */
export class TemplateTypeParamDto extends SiteNameParamDto {
  @ApiProperty({ example: 'users.otp' })
  @IsString()
  @MaxLength(100)
  @Matches(TEMPLATE_TYPE_PATTERN, { message: TYPE_MESSAGE })
  templateType: string;
}

export class DefaultTemplateDto {
  @ApiProperty({ example: 'Your sign-in code for {{ site.title }}' }) subject: string;
  @ApiProperty({ example: '<p>Your code: {{ code }}</p>' }) html: string;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Null: made from the HTML' })
  text: string | null;
}

export class TemplateTypeResponseDto {
  @ApiProperty({ example: 'users.otp' }) type: string;
  @ApiProperty({ example: 'users', description: 'The module that sends it' }) module: string;
  @ApiProperty({ example: 'A one-time sign-in code for a site user.' }) description: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'JSON Schema of the variables a template of this type receives (besides `site`). A variable marked ' +
      '`secret: true` (a code, a link with a token) reaches only the recipient: stored messages show ' +
      '`[redacted:<name>]` in its place',
    example: { type: 'object', properties: { code: { type: 'string', secret: true } }, required: ['code'] },
  })
  variables: Record<string, unknown>;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Data that previews render with',
    example: { code: '482913', expiresInMinutes: 10 },
  })
  sample: Record<string, unknown>;
  @ApiProperty({ type: DefaultTemplateDto, description: 'What the site sends until it publishes its own' })
  defaultTemplate: DefaultTemplateDto;
  @ApiProperty({
    example: false,
    description: 'A built-in mail only its module sends: the site cannot make a template of it (400), nor send it',
  })
  fixed: boolean;
}

export class TemplateTypeListDto {
  @ApiProperty({ type: [TemplateTypeResponseDto] }) data: TemplateTypeResponseDto[];
}

export function toTemplateTypeResponse(t: EmailTemplateType): TemplateTypeResponseDto {
  return {
    type: t.type,
    module: t.module,
    description: t.description,
    variables: t.variables as unknown as Record<string, unknown>,
    sample: t.sample,
    defaultTemplate: {
      subject: t.defaultTemplate.subject,
      html: t.defaultTemplate.html,
      text: t.defaultTemplate.text ?? null,
    },
    fixed: t.fixed === true,
  };
}
