import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { OptionalNotNull } from '../../common/input/dto-rules';
import { IsHeaderText } from '../../common/input/mail-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import { LIST_VISIBILITIES, NewsletterListEntity, type ListVisibility } from '../entities/newsletter-list.entity';

export const LIST_LIMITS = { name: 200, description: 2000 } as const;

export class CreateListDto {
  @ApiProperty({ example: 'Weekly digest', maxLength: LIST_LIMITS.name, description: 'Shown to subscribers' })
  @IsNotEmpty()
  @IsHeaderText(LIST_LIMITS.name)
  name: string;

  @ApiPropertyOptional({ example: 'The best of the week, every Friday', maxLength: LIST_LIMITS.description })
  @OptionalNotNull()
  @IsString()
  @MaxLength(LIST_LIMITS.description)
  description?: string;

  @ApiPropertyOptional({
    example: true,
    description:
      'New members confirm by mail before they are active; a change applies to members who join from now on. ' +
      'Absent on create: true',
  })
  @OptionalNotNull()
  @IsBoolean()
  doubleOptIn?: boolean;

  @ApiPropertyOptional({
    enum: LIST_VISIBILITIES,
    description: 'Only public lists may be named in the public subscribe. Absent on create: `public`',
  })
  @OptionalNotNull()
  @IsIn(LIST_VISIBILITIES)
  visibility?: ListVisibility;
}

/** A partial update: fields left out stay as they are (null is refused, as on create). */
export class UpdateListDto extends PartialType(CreateListDto, { skipNullProperties: false }) {}

export class ListQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ enum: LIST_VISIBILITIES })
  @IsOptional()
  @IsIn(LIST_VISIBILITIES)
  visibility?: ListVisibility;
}

export class ListCountsDto {
  @ApiProperty({ example: 3 }) pending: number;
  @ApiProperty({ example: 120 }) active: number;
  @ApiProperty({ example: 4 }) unsubscribed: number;
}

/** Members of a list by status. */
export type ListCounts = ListCountsDto;

export class ListResponseDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'Weekly digest' }) name: string;
  @ApiProperty({ example: 'The best of the week, every Friday' }) description: string;
  @ApiProperty({ example: true }) doubleOptIn: boolean;
  @ApiProperty({ enum: LIST_VISIBILITIES, example: 'public' }) visibility: ListVisibility;
  @ApiProperty({ type: ListCountsDto, description: 'Members by status' }) counts: ListCountsDto;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-24T10:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-24T10:00:00.000Z' }) updatedAt: string;
}

/** A list with its counts (the service reads them beside the row). */
export interface ListWithCounts {
  list: NewsletterListEntity;
  counts: ListCounts;
}

export function toListResponse({ list, counts }: ListWithCounts): ListResponseDto {
  return {
    id: list.id,
    name: list.name,
    description: list.description,
    doubleOptIn: list.doubleOptIn,
    visibility: list.visibility,
    counts: { pending: counts.pending, active: counts.active, unsubscribed: counts.unsubscribed },
    createdAt: list.createdAt.toISOString(),
    updatedAt: list.updatedAt.toISOString(),
  };
}
