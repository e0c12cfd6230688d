import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, ValidateBy } from 'class-validator';
import { domainToASCII } from 'node:url';
import { SENDER_DOMAIN_STATUSES, SenderDomainEntity, SenderDomainStatus } from '../entities/sender-domain.entity';
import { challengeRecord, dkimRecord, hostnameProblem } from '../sender-domain-records';
import { declareSchemaRule } from '../../common/openapi/openapi-rules';

/** Lower case and, for an internationalised name, its ASCII (punycode) form; anything else as given. */
const toHostname = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const ascii = domainToASCII(value.toLowerCase());
  return ascii === '' ? value : ascii;
};

declareSchemaRule('isSenderHostname', {
  schema: { format: 'hostname' },
  described:
    'Checked after lower-casing and conversion to ASCII: two labels or more, the last not all digits, at most 253 characters.',
});

export class CreateSenderDomainDto {
  @ApiProperty({
    example: 'news.example.com',
    maxLength: 253,
    description:
      'The domain the sites of this account will send From: a host name (lower-cased; an internationalised ' +
      'name is stored in its ASCII form), no IP address, no trailing dot. Its subdomains are not included.',
  })
  @Transform(toHostname)
  @IsString()
  @ValidateBy({
    name: 'isSenderHostname',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && hostnameProblem(value) === null,
      defaultMessage: (args) =>
        typeof args?.value === 'string' ? (hostnameProblem(args.value) ?? 'is invalid') : 'must be a string',
    },
  })
  domain: string;
}

export class DnsRecordDto {
  @ApiProperty({ enum: ['TXT'], example: 'TXT' }) type: 'TXT';
  @ApiProperty({ example: '_sitebase-challenge.news.example.com' }) name: string;
  @ApiProperty({
    example: 'sitebase-verification=3q2-7wX5…',
    description: 'The whole value; a DNS host splits one longer than 255 characters into strings itself',
  })
  value: string;
}

export class SenderDomainRecordsDto {
  @ApiProperty({ type: DnsRecordDto, description: "Proves the account controls the domain (this account's own value)" })
  verification: DnsRecordDto;
  @ApiProperty({ type: DnsRecordDto, description: 'The public key that checks the DKIM signature of mail From it' })
  dkim: DnsRecordDto;
}

export class SenderDomainResponseDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'news.example.com' }) domain: string;
  @ApiProperty({
    enum: SENDER_DOMAIN_STATUSES,
    example: 'pending',
    description:
      "pending: mail goes From MAIL_FROM with the site's address as Reply-To; verified: From the site's address, DKIM-signed",
  })
  status: SenderDomainStatus;
  @ApiProperty({ example: 'sb1a2b3c4d5e', description: 'The DKIM selector (s=) of signatures with this domain' })
  dkimSelector: string;
  @ApiProperty({ type: SenderDomainRecordsDto, description: 'The DNS records to publish' })
  records: SenderDomainRecordsDto;
  @ApiProperty({ ...DATE_TIME, nullable: true }) verifiedAt: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
}

/** The private key is not a field of the answer, and the entity's reads never carry it. */
export function toSenderDomainResponse(d: SenderDomainEntity): SenderDomainResponseDto {
  return {
    id: d.id,
    domain: d.domain,
    status: d.status,
    dkimSelector: d.dkimSelector,
    records: {
      verification: challengeRecord(d.domain, d.challengeToken),
      dkim: dkimRecord(d.domain, d.dkimSelector, d.dkimPublicKey),
    },
    verifiedAt: d.verifiedAt?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
  };
}
