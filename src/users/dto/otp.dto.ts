import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import { IsMailAddress } from '../../common/input/mail-rules';
import { UserResponseDto } from './user.dto';

export class RequestOtpDto {
  @ApiProperty({ example: 'ada@example.com' })
  @IsMailAddress()
  email: string;
}

export class VerifyOtpDto {
  @ApiProperty({ example: 'ada@example.com' })
  @IsMailAddress()
  email: string;

  @ApiProperty({ example: '482913', description: 'The 6 digits mailed' })
  @IsString()
  @Matches(/^\d{6}$/, { message: 'must be the 6 digits that were mailed' })
  code: string;
}

export class VerifyEmailDto {
  @ApiProperty({ example: '482913', description: 'The 6 digits mailed to the new address' })
  @IsString()
  @Matches(/^\d{6}$/, { message: 'must be the 6 digits that were mailed' })
  code: string;
}

export class OtpRequestedDto {
  @ApiProperty({
    example: 'If the address can sign in, a code is on its way.',
    description: 'The same answer whatever the address',
  })
  message: string;
  @ApiProperty({ example: 600, description: 'How long a code works, in seconds' }) expiresInSeconds: number;
}

export class SessionResponseDto {
  @ApiProperty({
    example: 'sbs_3q2-7wEjZP1zXk0nJ8v2mYQ6l4vB9cX1a0HhT5rSgUo',
    description: 'Send it as `Authorization: Bearer <token>`; shown once',
  })
  accessToken: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-02-01T00:00:00.000Z' }) expiresAt: string;
  @ApiProperty({ type: UserResponseDto }) user: UserResponseDto;
}
