import { ID, ID_LIST } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { OptionalNotNull, toBoolean } from '../../common/input/dto-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import { MediaDetail, MediaTermRef, MediaView } from '../media-view';
import { parseFormFields } from '../../common/input/form-fields';
import { Checked } from '../../common/input/checked';

export const TEXT_LIMITS = { title: 500, caption: 2000, description: 10000, altText: 1000 } as const;

/** Text fields of an upload (v2 form fields) and of PATCH. */
export class MediaTextDto {
  @ApiPropertyOptional({ example: 'Harbour at dawn', description: 'Default: the file name without extension' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(TEXT_LIMITS.title)
  title?: string;

  @ApiPropertyOptional({ example: 'Photo: A. Smith' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(TEXT_LIMITS.caption)
  caption?: string;

  @ApiPropertyOptional()
  @OptionalNotNull()
  @IsString()
  @MaxLength(TEXT_LIMITS.description)
  description?: string;

  @ApiPropertyOptional({ example: 'Fishing boats in a harbour at sunrise' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(TEXT_LIMITS.altText)
  altText?: string;
}

export class UpdateMediaDto extends MediaTextDto {
  @Checked('stored data', 'Each id names a media category of this site.')
  @ApiPropertyOptional({ ...ID_LIST, example: [1], description: 'Replaces the categories of the item' })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(Number.MAX_SAFE_INTEGER, { each: true })
  categoryIds?: number[];

  @Checked('stored data', 'Each id names a media tag of this site.')
  @ApiPropertyOptional({ ...ID_LIST, example: [1], description: 'Replaces the tags of the item' })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(Number.MAX_SAFE_INTEGER, { each: true })
  tagIds?: number[];
}

/**
 * A term id (all digits is an id, written without leading zeros) or a slug that is not all
 * digits: its first segment has a letter, or a hyphen follows it. Written without a lookahead,
 * each alternative a single way through (a ReDoS checker flagged the lookahead form).
 */
const TERM_REF = /^(?:[1-9][0-9]{0,14}|[0-9]*[a-z][a-z0-9]*(?:-[a-z0-9]+)*|[0-9]+(?:-[a-z0-9]+)+)$/;

export class MediaQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ description: 'Category id or slug' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(TERM_REF, { message: 'must be an id or a slug' })
  category?: string;

  @ApiPropertyOptional({ description: 'Tag id or slug' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(TERM_REF, { message: 'must be an id or a slug' })
  tag?: string;

  @ApiPropertyOptional({ example: 'image/*', description: 'Exact type (image/png) or a family (image/*)' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(/^[a-z]+\/(\*|[a-z0-9][a-z0-9.+-]*)$/, { message: 'must look like image/png or image/*' })
  contentType?: string;

  @ApiPropertyOptional({ description: 'true: originals only; false: thumbnails only; absent: both' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  original?: boolean;

  @ApiPropertyOptional({ description: 'Text search in title and file name' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;
}

export class MediaTermRefDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'Travel' }) name: string;
  @ApiProperty({ example: 'travel' }) slug: string;
}

export class MediaThumbnailDto {
  @ApiProperty({ ...ID, example: 43 }) id: number;
  @ApiProperty({ example: 'https://example.com/files/sites/1/3f2a/harbour-150w.jpg' }) link: string;
  @ApiProperty({ example: 'image/jpeg' }) contentType: string;
  @ApiProperty({ type: 'integer', nullable: true, example: 150 }) width: number | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 100 }) height: number | null;
  @ApiProperty({ type: String, nullable: true, example: '150x100' }) size: string | null;
  @ApiProperty({ example: 5120, description: 'Bytes' }) filesize: number;
}

/** INTERFACE.md §2.2 in camelCase, plus v2 extras (alt text, key, terms, thumbnails). */
export class MediaResponseDto {
  @ApiProperty({ ...ID, example: 42 }) id: number;
  @ApiProperty({ ...ID, example: 42, description: 'Same as id (the §2.2 name)' }) mediaId: number;
  @ApiProperty({ ...ID, example: 42, description: "The original's id (own id for an original)" }) attachmentId: number;
  @ApiProperty({ example: 'demo' }) siteName: string;
  @ApiProperty({ example: 'Harbour at dawn' }) title: string;
  @ApiProperty({ example: '' }) caption: string;
  @ApiProperty({ example: '' }) description: string;
  @ApiProperty({ example: '' }) altText: string;
  @ApiProperty({ example: 'harbour.jpg', description: 'The uploaded file name (display only)' }) fileName: string;
  @ApiProperty({ example: 'image/jpeg', description: 'Detected from the bytes' }) contentType: string;
  @ApiProperty({ example: 'https://example.com/files/sites/1/3f2a/harbour.jpg' }) link: string;
  @ApiProperty({ example: 'https://example.com/files/sites/1/3f2a/harbour.jpg' }) originalUrl: string;
  @ApiProperty({ type: String, nullable: true, example: '1600x1067', description: 'WxH; null for non-images' }) size:
    string | null;
  @ApiProperty({ type: Number, nullable: true, example: 1600 }) width: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 1067 }) height: number | null;
  @ApiProperty({ example: 482113, description: 'Bytes' }) filesize: number;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) mediaDate: string;
  @ApiProperty({ example: true }) isOriginal: boolean;
  @ApiProperty({ example: false }) isThumbnail: boolean;
  @ApiProperty({
    example: 'sites/1/3f2a9c0d1e2b3a4f5c6d/harbour.jpg',
    description: 'Storage key (v1 project media delete takes these)',
  })
  key: string;
  @ApiProperty({ type: [MediaTermRefDto] }) categories: MediaTermRefDto[];
  @ApiProperty({ type: [MediaTermRefDto] }) tags: MediaTermRefDto[];
  @ApiProperty({ type: [MediaThumbnailDto], description: 'Variants of an original, narrowest first' })
  thumbnails: MediaThumbnailDto[];
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

export function sizeOf(view: Pick<MediaView, 'width' | 'height'>): string | null {
  return view.width !== null && view.height !== null ? `${view.width}x${view.height}` : null;
}

function toTermRef(t: MediaTermRef): MediaTermRefDto {
  return { id: t.id, name: t.name, slug: t.slug };
}

function toThumbnail(v: MediaView): MediaThumbnailDto {
  return {
    id: v.id,
    link: v.link,
    contentType: v.contentType,
    width: v.width,
    height: v.height,
    size: sizeOf(v),
    filesize: v.filesize,
  };
}

export function toMediaResponse(m: MediaDetail): MediaResponseDto {
  return {
    id: m.id,
    mediaId: m.id,
    attachmentId: m.attachmentId,
    siteName: m.siteName,
    title: m.title,
    caption: m.caption,
    description: m.description,
    altText: m.altText,
    fileName: m.fileName,
    contentType: m.contentType,
    link: m.link,
    originalUrl: m.originalUrl,
    size: sizeOf(m),
    width: m.width,
    height: m.height,
    filesize: m.filesize,
    mediaDate: m.createdAt.toISOString(),
    isOriginal: m.isOriginal,
    isThumbnail: m.isThumbnail,
    key: m.storageKey,
    categories: m.categories.map(toTermRef),
    tags: m.tags.map(toTermRef),
    thumbnails: m.thumbnails.map(toThumbnail),
    updatedAt: m.updatedAt.toISOString(),
  };
}

/** The v2 upload form: one `file` part and the text fields of MediaTextDto. */
export const V2_UPLOAD_FORM = {
  fileFields: ['file'],
  maxFiles: 1,
  parseFields: (raw: Record<string, string>) => parseFormFields(MediaTextDto, raw),
};
