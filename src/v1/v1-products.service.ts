import { Injectable } from '@nestjs/common';
import { Principal } from '../common/auth/principal';
import { FieldError, ValidationProblem } from '../common/errors/problems';
import { SiteContext } from '../common/tenancy/site-context';
import { CategoriesService } from '../catalog/categories.service';
import { ProductsService, ProductView } from '../catalog/products.service';
import { MediaService, MediaView } from '../media/media.service';
import {
  toCreateVariantInput,
  toUpdateProductInput,
  V1CreateVariantDto,
  V1ProductFieldsDto,
  V1VariantInputDto,
} from './dto/v1-product.dto';

/** A product with the media its attachments name. */
export interface V1ProductView {
  view: ProductView;
  media: MediaView[];
}

/**
 * The v1 catalog routes over the catalog services: v1 field names in and out, v1
 * names in errors, `replace_attachments` adding by default as v1 pages do.
 */
@Injectable()
export class V1ProductsService {
  constructor(
    private readonly products: ProductsService,
    private readonly categories: CategoriesService,
    private readonly media: MediaService,
  ) {}

  async update(site: SiteContext, principal: Principal, id: number, body: V1ProductFieldsDto): Promise<V1ProductView> {
    const current = (await this.products.get(site, principal, String(id))).product;
    const dto = toUpdateProductInput(await this.attachments(site, principal, id, body), current.currency);
    const view = await v1Paths(() => this.products.update(site, id, dto));
    return (await this.withMedia(site, [view]))[0];
  }

  /**
   * `PUT …/variant`: the product's fields and a new variant in one write. Option names in the
   * variant name the product's options when it has none; another name than the product's is a 400.
   */
  async addVariant(
    site: SiteContext,
    principal: Principal,
    id: number,
    body: V1CreateVariantDto,
  ): Promise<V1ProductView> {
    const current = (await this.products.get(site, principal, String(id))).product;
    const { variant, ...fields } = body;
    const withOptions = { ...fields, ...optionNames(variant, current, fields) };
    const dto = toUpdateProductInput(await this.attachments(site, principal, id, withOptions), current.currency);
    const input = toCreateVariantInput(variant, dto.currency ?? current.currency);
    const view = await v1Paths(() => this.products.updateWithVariant(site, id, dto, input));
    return (await this.withMedia(site, [view]))[0];
  }

  /** A category with its products, their variants and media. */
  async category(site: SiteContext, id: number) {
    const category = await this.categories.get(site, id);
    const products = await this.withMedia(site, await this.products.ofCategory(site, id));
    const media = await this.media.viewsByIds(site, category.attachmentIds);
    return { category, media, products };
  }

  /** v1 `replace_attachments: false` (or absent) adds the given attachments to the current ones. */
  private async attachments<T extends V1ProductFieldsDto>(
    site: SiteContext,
    principal: Principal,
    id: number,
    body: T,
  ): Promise<T> {
    if (body.attachment_ids === undefined || body.replace_attachments === true) return body;
    const current = (await this.products.get(site, principal, String(id))).product.attachmentIds;
    return { ...body, attachment_ids: [...new Set([...current, ...body.attachment_ids])] };
  }

  /** One media query for all the products. Media deleted since it was attached is left out. */
  private async withMedia(site: SiteContext, views: ProductView[]): Promise<V1ProductView[]> {
    const all = await this.media.viewsByIds(site, [...new Set(views.flatMap((v) => v.product.attachmentIds))]);
    const byId = new Map(all.map((m) => [m.id, m]));
    return views.map((view) => ({ view, media: view.product.attachmentIds.flatMap((i) => byId.get(i) ?? []) }));
  }
}

/** The option names a v1 variant brings: taken where the product has none, refused where it has another. */
function optionNames(
  variant: V1VariantInputDto,
  product: { option1: string | null; option2: string | null; option3: string | null },
  fields: V1ProductFieldsDto,
): Partial<V1ProductFieldsDto> {
  const names: Partial<V1ProductFieldsDto> = {};
  const errors: FieldError[] = [];
  for (const n of [1, 2, 3] as const) {
    const key = `option${n}` as const;
    const given = variant[key];
    if (given == null) continue;
    const current = fields[key] !== undefined ? fields[key] : product[key];
    if (current === null || current === undefined) names[key] = given;
    else if (current !== given)
      errors.push({ path: `variant.${key}`, message: `is ${given}, but the product's ${key} is ${current}` });
  }
  if (errors.length) throw new ValidationProblem(errors);
  return names;
}

const V1_PATHS: Record<string, string> = {
  name: 'product',
  slugPrefix: 'slug_prefix',
  unitAmount: 'unit_amount',
  position: 'order',
  quantityAvailable: 'quantity_available',
  categoryId: 'product_category_id',
  taxCode: 'tax',
  taxBehavior: 'tax_behavior',
  processorDescription: 'processor_description',
  attachmentIds: 'attachment_ids',
  option1Value: 'variant.option1_value',
  option2Value: 'variant.option2_value',
  option3Value: 'variant.option3_value',
};

/** v1 names its fields snake_case in errors too. */
async function v1Paths<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof ValidationProblem) || !err.errors) throw err;
    throw new ValidationProblem(err.errors.map((e) => ({ ...e, path: V1_PATHS[e.path] ?? e.path })));
  }
}
