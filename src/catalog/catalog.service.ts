import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { ConflictProblem, FieldError, ValidationProblem } from '../common/errors/problems';
import { recordEvent } from '../common/outbox/record-event';
import { SiteContext } from '../common/tenancy/site-context';
import { CatalogRepository } from './catalog.repository';
import { CATALOG_EVENTS } from './catalog.events';
import { ProductEntity, RecurringInterval, TaxBehavior } from './entities/product.entity';
import { ProductVariantEntity } from './entities/product-variant.entity';
import { PublicCatalogCache } from './public-catalog.cache';

/** One line a buyer asks for. */
export interface OrderLineRequest {
  productId: number;
  variantId?: number | null;
  quantity: number;
}

/** A line as the catalog prices it: what an order keeps of the product at the time of sale. */
export interface PricedLine {
  productId: number;
  variantId: number | null;
  /** The product's name, with the variant's values (`Mug (M / Blue)`). */
  name: string;
  sku: string | null;
  unitAmount: number;
  currency: string;
  quantity: number;
  taxCode: string | null;
  taxBehavior: TaxBehavior;
  recurring: { interval: RecurringInterval; intervalCount: number } | null;
}

/**
 * What other modules ask of the catalog (orders): the price of lines as the catalog has them
 * now, and stock taken or given back in the caller's transaction.
 */
@Injectable()
export class CatalogService {
  constructor(
    private readonly repository: CatalogRepository,
    private readonly cache: PublicCatalogCache,
  ) {}

  /**
   * Prices the lines from the catalog (a client's prices are never used). Each must name a
   * published product of the site, and a variant of it if any; a 400 names the line otherwise.
   */
  async priceLines(em: EntityManager, site: SiteContext, lines: OrderLineRequest[]): Promise<PricedLine[]> {
    const productIds = [...new Set(lines.map((l) => l.productId))];
    const variantIds = [...new Set(lines.flatMap((l) => (l.variantId ? [l.variantId] : [])))];
    const products = new Map(
      (await em.find(ProductEntity, { where: { siteId: site.id, id: In(productIds) } })).map((p) => [p.id, p]),
    );
    const variants = new Map(
      variantIds.length === 0
        ? []
        : (await em.find(ProductVariantEntity, { where: { siteId: site.id, id: In(variantIds) } })).map((v) => [
            v.id,
            v,
          ]),
    );
    const errors: FieldError[] = [];
    const priced: PricedLine[] = [];
    lines.forEach((line, i) => {
      const product = products.get(line.productId);
      if (!product || product.status !== 'published') {
        errors.push({
          path: `lines.${i}.productId`,
          message: `product ${line.productId} is not for sale in this site`,
        });
        return;
      }
      const variant = line.variantId ? variants.get(line.variantId) : undefined;
      if (line.variantId && (!variant || variant.productId !== product.id)) {
        errors.push({
          path: `lines.${i}.variantId`,
          message: `variant ${line.variantId} is not a variant of product ${product.id}`,
        });
        return;
      }
      const values = variant ? [variant.option1Value, variant.option2Value, variant.option3Value].filter((v) => v) : [];
      priced.push({
        productId: product.id,
        variantId: variant?.id ?? null,
        name: values.length ? `${product.name} (${values.join(' / ')})` : product.name,
        sku: variant?.sku ?? null,
        unitAmount: variant?.unitAmount ?? product.unitAmount,
        currency: product.currency,
        quantity: line.quantity,
        taxCode: product.taxCode,
        taxBehavior: product.taxBehavior,
        recurring:
          product.recurringInterval && product.recurringIntervalCount
            ? { interval: product.recurringInterval, intervalCount: product.recurringIntervalCount }
            : null,
      });
    });
    if (errors.length) throw new ValidationProblem(errors);
    return priced;
  }

  /**
   * Takes the lines' stock in the caller's transaction (concurrent orders never sell
   * more than there is); 409 `out_of_stock` naming the first line that lacks it.
   */
  async takeStock(em: EntityManager, site: SiteContext, lines: PricedLine[]): Promise<void> {
    const merged = mergeLines(lines);
    const short = await this.repository.takeStock(em, site.id, merged);
    if (short) {
      const line = lines.find((l) => l.productId === short.productId && l.variantId === short.variantId)!;
      throw new ConflictProblem('out_of_stock', `Not enough stock of ${line.name} for ${short.quantity}`);
    }
    await this.stockChanged(em, site, merged);
  }

  /**
   * Of these items (a product, or one of its variants), those whose stock is counted: what an
   * order holds while unpaid (unlimited stock is held by nobody). A product or variant gone is
   * not counted.
   */
  async countedStock<T extends { productId: number; variantId: number | null }>(
    em: EntityManager,
    site: SiteContext,
    items: T[],
  ): Promise<T[]> {
    const counted = await this.repository.countedStock(em, site.id, items);
    const keys = new Set(counted.map((c) => `${c.productId}:${c.variantId ?? ''}`));
    return items.filter((i) => keys.has(`${i.productId}:${i.variantId ?? ''}`));
  }

  /** Gives the lines' stock back (a canceled order). */
  async restoreStock(em: EntityManager, site: SiteContext, lines: PricedLine[]): Promise<void> {
    const merged = mergeLines(lines);
    await this.repository.restoreStock(em, site.id, merged);
    await this.stockChanged(em, site, merged);
  }

  private async stockChanged(em: EntityManager, site: SiteContext, lines: Array<{ productId: number }>): Promise<void> {
    const ids = [...new Set(lines.map((l) => l.productId))];
    const products = await em.find(ProductEntity, {
      where: { id: In(ids) },
      select: { id: true, slug: true, status: true, version: true },
    });
    for (const p of products)
      await recordEvent(em, site, CATALOG_EVENTS.productUpdated, {
        id: p.id,
        slug: p.slug,
        status: p.status,
        version: p.version,
      });
    // Readers see the new stock once the caller commits: the site-data trigger's NOTIFY drops the
    // site's cached reads on every instance then (this drop only spares the entries read meanwhile).
    this.cache.invalidate(site.id);
  }
}

/** One line per product and variant: an order may name the same item twice. */
function mergeLines(lines: PricedLine[]): Array<{ productId: number; variantId: number | null; quantity: number }> {
  const byItem = new Map<string, { productId: number; variantId: number | null; quantity: number }>();
  for (const l of lines) {
    const key = `${l.productId}:${l.variantId ?? ''}`;
    const found = byItem.get(key);
    if (found) found.quantity += l.quantity;
    else byItem.set(key, { productId: l.productId, variantId: l.variantId, quantity: l.quantity });
  }
  return [...byItem.values()];
}
