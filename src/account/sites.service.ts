import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { KeyPrincipal, SiteDirectory } from '../common/auth/principal';
import { ChangeNotifications } from '../database/change-notifications';
import { ConflictProblem, ForbiddenProblem, NotFoundProblem } from '../common/errors/problems';
import { isUniqueViolation } from '../common/errors/postgres-errors';
import { recordEvent } from '../common/outbox/record-event';
import { ACCOUNT_EVENTS } from './account.events';
import { AccountRepository } from './account.repository';
import { CursorQueryDto, Page } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { CreateSiteDto, UpdateSiteDto } from './dto/site.dto';
import { NULL_IS_A_VALUE, type SiteSettings } from '../common/tenancy/site-settings';
import { SiteEntity } from '../common/tenancy/entities/site.entity';

const SITE_CACHE_MS = 30_000;
const SITE_CACHE_MAX = 10_000;

@Injectable()
export class SitesService implements SiteDirectory {
  private readonly byName = new Map<string, { site: SiteContext; until: number }>();
  private readonly byId = new Map<number, { site: SiteContext; until: number }>();

  constructor(
    @InjectRepository(SiteEntity) private readonly sites: Repository<SiteEntity>,
    private readonly dataSource: DataSource,
    private readonly repository: AccountRepository,
    notifications: ChangeNotifications,
  ) {
    // A site renamed or deleted anywhere (only a purge deletes sites) is forgotten here at commit.
    notifications.subscribe('sitebase_sites', () => {
      this.byName.clear();
      this.byId.clear();
    });
  }

  /**
   * The guard resolves a site on every site-scoped request. A site's name, id and account never
   * change, and a site only goes away with its account, so found sites are cached for
   * SITE_CACHE_MS; the purge forgets them at once here and other instances within that time
   * (their keys are already dead: key checks always read the database). Misses are not cached,
   * so a new site answers at once everywhere.
   */
  async findByName(name: string): Promise<SiteContext | null> {
    const cached = this.cached(this.byName.get(name));
    if (cached) return cached;
    return this.remember(
      await this.sites.findOne({ where: { name }, select: { id: true, name: true, accountId: true } }),
    );
  }

  peekByName(name: string): SiteContext | null {
    return this.cached(this.byName.get(name));
  }

  async findById(id: number): Promise<SiteContext | null> {
    const cached = this.cached(this.byId.get(id));
    if (cached) return cached;
    return this.remember(
      await this.sites.findOne({ where: { id }, select: { id: true, name: true, accountId: true } }),
    );
  }

  private cached(entry: { site: SiteContext; until: number } | undefined): SiteContext | null {
    return entry && entry.until > Date.now() ? entry.site : null;
  }

  private remember(row: SiteEntity | null): SiteContext | null {
    if (!row) return null;
    const site: SiteContext = Object.freeze({ id: row.id, name: row.name, accountId: row.accountId });
    if (this.byName.size >= SITE_CACHE_MAX) {
      this.byName.clear();
      this.byId.clear();
    }
    const entry = { site, until: Date.now() + SITE_CACHE_MS };
    this.byName.set(site.name, entry);
    this.byId.set(site.id, entry);
    return site;
  }

  /** The purge of an account: its sites are gone, forget them now (other instances within SITE_CACHE_MS). */
  forgetAccount(accountId: number): void {
    for (const [name, { site }] of this.byName) {
      if (site.accountId === accountId) {
        this.byName.delete(name);
        this.byId.delete(site.id);
      }
    }
  }

  /** Creates a site in the caller's account; names are unique across the installation. */
  create(key: KeyPrincipal, dto: CreateSiteDto): Promise<SiteEntity> {
    return this.dataSource.transaction((em) => this.createInAccount(em, key.accountId, dto));
  }

  async createInAccount(em: EntityManager, accountId: number, dto: CreateSiteDto): Promise<SiteEntity> {
    try {
      const site = await em.save(em.create(SiteEntity, { accountId, name: dto.name, title: dto.title ?? '' }));
      await recordEvent(em, site, ACCOUNT_EVENTS.siteCreated, { id: site.id, name: site.name });
      return site;
    } catch (err) {
      if (isUniqueViolation(err, 'sites_name_key'))
        throw new ConflictProblem('duplicate_site_name', `A site named "${dto.name}" already exists`);
      throw err;
    }
  }

  list(key: KeyPrincipal, query: CursorQueryDto): Promise<Page<SiteEntity>> {
    return this.repository.listSites(key.accountId, key.siteIds, query);
  }

  async get(key: KeyPrincipal, name: string): Promise<SiteEntity> {
    const site = await this.sites.findOne({ where: { name, accountId: key.accountId } });
    if (!site || (key.siteIds !== null && !key.siteIds.includes(site.id)))
      throw new NotFoundProblem('Site', 'site_not_found');
    return site;
  }

  /**
   * Changes the title and settings of a site the key reaches. Settings merge section by section:
   * a field left out stays, a null clears it.
   */
  update(key: KeyPrincipal, name: string, dto: UpdateSiteDto): Promise<SiteEntity> {
    return this.dataSource.transaction(async (em) => {
      const found = await this.get(key, name);
      const site = await em.findOneOrFail(SiteEntity, { where: { id: found.id }, lock: { mode: 'pessimistic_write' } });
      if (dto.title !== undefined) site.title = dto.title;
      if (dto.settings) site.settings = mergeSettings(site.settings, dto.settings);
      const saved = await em.save(site);
      await recordEvent(em, site, ACCOUNT_EVENTS.siteUpdated, { id: site.id, name: site.name });
      return saved;
    });
  }

  /** The title and settings of a site, for the modules that read them (email: the sender, links). */
  async profileOf(siteId: number, em?: EntityManager): Promise<{ title: string; settings: SiteSettings }> {
    // Inside a caller's transaction, on its connection: a second one per request can exhaust the pool.
    const repo = em ? em.getRepository(SiteEntity) : this.sites;
    const row = await repo.findOne({ where: { id: siteId }, select: { id: true, title: true, settings: true } });
    return { title: row?.title ?? '', settings: row?.settings ?? {} };
  }

  /** Checks that every id is a site of the account (for key restrictions). */
  async assertOwned(accountId: number, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    const found = await this.sites.count({ where: { accountId, id: In(ids) } });
    if (found !== new Set(ids).size)
      throw new ForbiddenProblem('site_not_in_account', 'Every site id must be a site of this account');
  }
}

/** One level of fields and one of sections: null deletes a field, an object merges into its section. */
function mergeSettings(current: SiteSettings, patch: object): SiteSettings {
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete next[key];
    else if (typeof value === 'object') {
      const section: Record<string, unknown> = { ...((next[key] as Record<string, unknown>) ?? {}) };
      for (const [field, v] of Object.entries(value as Record<string, unknown>)) {
        if (v === null && !NULL_IS_A_VALUE.has(`${key}.${field}`)) delete section[field];
        else if (v !== undefined) section[field] = v;
      }
      next[key] = section;
    } else next[key] = value;
  }
  return next;
}
