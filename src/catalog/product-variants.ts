import { EntityManager } from 'typeorm';
import { ConflictProblem, NotFoundProblem, ValidationProblem } from '../common/errors/problems';
import { isUniqueViolation } from '../common/errors/postgres-errors';
import { ProductEntity } from './entities/product.entity';
import { ProductVariantEntity } from './entities/product-variant.entity';
import { CreateVariantDto } from './dto/variant.dto';
import { SiteContext } from '../common/tenancy/site-context';

/** A product's variants (docs/catalog.md): the rules and statements ProductsService's writes share. */

const OPTIONS_KEY = 'product_variants_options_key';
const SKU_KEY = 'product_variants_site_id_sku_key';

/** A product's variants in their order. */
export function variantsIn(em: EntityManager, productId: number): Promise<ProductVariantEntity[]> {
  return em.find(ProductVariantEntity, { where: { productId }, order: { position: 'ASC', id: 'ASC' } });
}

/** One variant of the product, or 404. */
export async function variantOf(em: EntityManager, product: ProductEntity, id: number): Promise<ProductVariantEntity> {
  const variant = await em.findOne(ProductVariantEntity, { where: { id, productId: product.id } });
  if (!variant) throw new NotFoundProblem('Variant');
  return variant;
}

/** Saves a variant; the same option values or SKU as another's is a 409 naming it. */
export async function saveVariant(em: EntityManager, variant: ProductVariantEntity): Promise<void> {
  try {
    await em.save(variant);
  } catch (err) {
    if (isUniqueViolation(err, OPTIONS_KEY))
      throw new ConflictProblem('duplicate_variant', 'The product already has a variant with these option values');
    if (isUniqueViolation(err, SKU_KEY))
      throw new ConflictProblem('duplicate_sku', `The SKU ${variant.sku} is taken in this site`);
    throw err;
  }
}

/** A variant sets a value only for an option the product names (400 otherwise), and at least one. */
export function checkOptions(
  product: ProductEntity,
  v: { option1Value?: string | null; option2Value?: string | null; option3Value?: string | null },
): void {
  const errors: Array<{ path: string; message: string }> = [];
  const pairs = [
    [product.option1, v.option1Value, 'option1Value', 'option1'],
    [product.option2, v.option2Value, 'option2Value', 'option2'],
    [product.option3, v.option3Value, 'option3Value', 'option3'],
  ] as const;
  for (const [name, value, path, option] of pairs)
    if (value != null && name === null)
      errors.push({ path, message: `the product has no ${option}: name it on the product first` });
  if (pairs.every(([, value]) => value == null))
    errors.push({ path: 'option1Value', message: 'a variant needs at least one option value' });
  if (errors.length) throw new ValidationProblem(errors);
}

/** A new variant of the product from the create body (its options checked first). */
export async function addVariant(
  em: EntityManager,
  site: SiteContext,
  product: ProductEntity,
  dto: CreateVariantDto,
): Promise<void> {
  checkOptions(product, dto);
  await saveVariant(
    em,
    em.create(ProductVariantEntity, {
      siteId: site.id,
      productId: product.id,
      option1Value: dto.option1Value ?? null,
      option2Value: dto.option2Value ?? null,
      option3Value: dto.option3Value ?? null,
      unitAmount: dto.unitAmount ?? null,
      quantityAvailable: dto.quantityAvailable ?? null,
      sku: dto.sku ?? null,
      position: dto.position ?? 0,
    }),
  );
}
