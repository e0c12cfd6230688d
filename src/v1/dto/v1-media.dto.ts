import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { SITE_NAME_PATTERN } from '../../common/auth/principal';
import { IsIdParam, MAX_ID, toInteger } from '../../common/input/dto-rules';
import { TEXT_LIMITS } from '../../media/dto/media.dto';
import type { MediaTextInput, UploadOptions } from '../../media/media-upload.service';
import { MediaView } from '../../media/media.service';
import { parseFormFields } from '../../common/input/form-fields';

/** INTERFACE.md §2.2, field for field. */
export class V1MediaItemDto {
  @ApiProperty({ ...ID, example: 42 }) media_id: number;
  @ApiProperty({ ...ID, example: 42, description: "The original's id (own id for an original)" }) attachment_id: number;
  @ApiProperty({ example: 'demo' }) site_name: string;
  @ApiProperty({ example: 'Harbour at dawn' }) title: string;
  @ApiProperty({ example: '' }) caption: string;
  @ApiProperty({ example: '' }) description: string;
  @ApiProperty({ example: 'harbour.jpg' }) file_name: string;
  @ApiProperty({ example: 'image/jpeg' }) content_type: string;
  @ApiProperty({ example: 'https://example.com/files/sites/1/3f2a/harbour.jpg' }) link: string;
  @ApiProperty({ example: 'https://example.com/files/sites/1/3f2a/harbour.jpg' }) original_url: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '1600x1067',
    description: 'width x height; null for non-images',
  })
  size: string | null;
  @ApiProperty({ type: Number, nullable: true, example: 1600 }) width: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 1067 }) height: number | null;
  @ApiProperty({ example: 482113, description: 'Bytes' }) filesize: number;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) media_date: string;
  @ApiProperty({ example: true }) is_original: boolean;
  @ApiProperty({ example: false }) is_thumbnail: boolean;
}

export function toV1MediaItem(view: MediaView): V1MediaItemDto {
  return {
    media_id: view.id,
    attachment_id: view.attachmentId,
    site_name: view.siteName,
    title: view.title,
    caption: view.caption,
    description: view.description,
    file_name: view.fileName,
    content_type: view.contentType,
    link: view.link,
    original_url: view.originalUrl,
    size: view.width !== null && view.height !== null ? `${view.width}x${view.height}` : null,
    width: view.width,
    height: view.height,
    filesize: view.filesize,
    media_date: view.createdAt.toISOString(),
    is_original: view.isOriginal,
    is_thumbnail: view.isThumbnail,
  };
}

export class V1MediaListDto {
  @ApiProperty({ type: [V1MediaItemDto] }) data: V1MediaItemDto[];
  @ApiProperty({ example: 57 }) total: number;
  @ApiProperty({ example: 20 }) limit: number;
  @ApiProperty({ example: 0 }) offset: number;
}

/** `/v1/{site_name}/media/{limit}/{offset}`: limit 1..100, offset from 0. */
export class V1MediaListParamsDto {
  @ApiProperty({ example: 'demo' })
  @IsString()
  @Matches(SITE_NAME_PATTERN, { message: 'is not a valid site name' })
  site_name: string;

  @ApiProperty({ minimum: 1, maximum: 100, example: 20 })
  @Transform(toInteger)
  @IsInt({ message: 'must be an integer from 1 to 100' })
  @Min(1)
  @Max(100)
  limit: number;

  @ApiProperty({ minimum: 0, example: 0 })
  @Transform(toInteger)
  @IsInt({ message: 'must be a non-negative integer' })
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  offset: number;
}

/** Text fields of the v1 upload forms (snake_case). */
export class V1MediaFieldsDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_LIMITS.title) title?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_LIMITS.caption) caption?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_LIMITS.description) description?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(TEXT_LIMITS.altText) alt_text?: string;
}

function parseV1Fields(raw: Record<string, string>): MediaTextInput {
  const f = parseFormFields(V1MediaFieldsDto, raw);
  return { title: f.title, caption: f.caption, description: f.description, altText: f.alt_text };
}

export const V1_TEXT_FIELDS = ['title', 'caption', 'description', 'alt_text'];

/** `POST /v1/{site_name}/media`: one `file` part. */
export const V1_UPLOAD_FORM: UploadOptions = { fileFields: ['file'], maxFiles: 1, parseFields: parseV1Fields };

/** Project media: one or several files, as `file` (repeated) or `files`. */
export function v1ProjectUploadForm(maxFiles: number): UploadOptions {
  return { fileFields: ['file', 'files', 'files[]'], maxFiles, parseFields: parseV1Fields };
}

/** INTERFACE.md §2.5. */
export class V1ProjectMediaDeleteDto {
  @ApiProperty({
    type: [String],
    example: ['sites/1/3f2a9c0d1e2b3a4f5c6d/harbour.jpg'],
    description: "Storage keys of the project's media",
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(300, { each: true })
  keys: string[];
}

/** `/v1/project/{organization_id}/{project_id}/media`. */
export class V1ProjectParamsDto {
  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 1, description: 'Account id' })
  @IsIdParam()
  organization_id: number;

  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 1, description: 'Site id' })
  @IsIdParam()
  project_id: number;
}
