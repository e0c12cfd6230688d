import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import { SiteNameParamDto } from '../../common/http/params';

/** An open or click token (tracking-tokens.ts): its shape only; the signature is checked by the service. */
export class TrackingTokenParamDto extends SiteNameParamDto {
  @ApiProperty({ example: 'o.1.42.Vq3w8Jb0mGZkXz1yQ2u3Aw', maxLength: 120 })
  @IsString()
  @MaxLength(120)
  @Matches(/^[A-Za-z0-9._-]+$/, { message: 'is not a valid tracking token' })
  token: string;
}

export class ClickTargetDto {
  @ApiProperty({ example: 'https://demo.example/post', description: 'Where the link leads' })
  url: string;
}
