/**
 * What a key may do (docs/foundation.md, "Permissions"): `<group>:read` or `<group>:write` over
 * the interface's resource groups, or `*`. The one catalogue: the create-key DTO validates
 * against it, routes declare from it (@Route), the guard enforces it, the document states it
 * and the tests walk it.
 */
export const PERMISSION_GROUPS = [
  'content',
  'collections',
  'media',
  'catalog',
  'orders',
  'contacts',
  'users',
  'newsletter',
  'email',
  'webhooks',
  'payments',
  // new:module: permission groups above (a module's routes take its own group)
  'sites',
  'api-keys',
  'account',
] as const;

export type PermissionGroup = (typeof PERMISSION_GROUPS)[number];
export type Permission = `${PermissionGroup}:${'read' | 'write'}` | '*';

export const ALL_PERMISSIONS = '*';

/** Every permission a key may be given, `*` first. */
export const PERMISSIONS: readonly Permission[] = Object.freeze([
  ALL_PERMISSIONS,
  ...PERMISSION_GROUPS.flatMap((g) => [`${g}:read`, `${g}:write`] as Permission[]),
]);

const KNOWN = new Set<string>(PERMISSIONS);

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && KNOWN.has(value);
}

/**
 * Whether a key holding `held` (null: every permission) may do what `needed` names: `*` holds
 * everything, and `write` holds the `read` of its group.
 */
export function grants(held: readonly string[] | null, needed: Permission): boolean {
  if (held === null || held.includes(ALL_PERMISSIONS)) return true;
  if (needed === ALL_PERMISSIONS) return false;
  if (held.includes(needed)) return true;
  return needed.endsWith(':read') && held.includes(`${needed.slice(0, -':read'.length)}:write`);
}

/** The permissions of `requested` (null: every one) that `held` does not grant. */
export function notGranted(held: readonly string[] | null, requested: readonly Permission[] | null): Permission[] {
  return (requested ?? [ALL_PERMISSIONS]).filter((p) => !grants(held, p));
}

/** A set as stored: sorted, without repeats; `*` alone stands for every permission. */
export function normalizePermissions(list: readonly Permission[] | null | undefined): Permission[] | null {
  if (list === null || list === undefined) return null;
  if (list.includes(ALL_PERMISSIONS)) return [ALL_PERMISSIONS];
  return [...new Set(list)].sort();
}

/**
 * What a publishable key (`sb_pub_…`, docs/foundation.md "Publishable keys") may read besides the
 * public routes: the published data of its sites (content, collections, the catalog, and each
 * module's whose reads anyone may make) and media. Creating one needs these, as creating any key
 * needs what it gives. Stored on each publishable key as made, sorted; a module that adds its
 * group here gives existing keys the read in its migration (docs/modules.md, "Permissions").
 */
export const PUBLISHABLE_PERMISSIONS: readonly Permission[] = Object.freeze(
  (
    [
      'catalog:read',
      'collections:read',
      'content:read',
      'media:read',
      // new:module: publishable reads above (a module whose reads anyone may make)
    ] as Permission[]
  ).sort(),
);

/**
 * The groups whose writes manage who holds the account: creating, revoking and rolling keys
 * (`api-keys`), deleting the account and cancelling that (`account`). A key's secret that a roll
 * replaced keeps every other power of the key for its grace, but not these (docs/foundation.md,
 * "Rolling"): a leaked secret must not be able to roll the key away from its owner, revoke
 * the owner's keys or mint a key of its own. Nor may it connect a site to another payment
 * account (`payments`): whoever sets the processor keys decides where the money goes. Sites, sender domains and the rest are the
 * account's resources, not its credentials: a replaced secret writes them as the key may.
 */
export const CURRENT_SECRET_GROUPS: readonly PermissionGroup[] = Object.freeze(['api-keys', 'account', 'payments']);

/** Whether a route needing `permission` takes a key's current secret only (CURRENT_SECRET_GROUPS). */
export function needsCurrentSecret(permission: Permission): boolean {
  if (permission === ALL_PERMISSIONS) return true;
  const [group, access] = permission.split(':') as [PermissionGroup, 'read' | 'write'];
  return access === 'write' && CURRENT_SECRET_GROUPS.includes(group);
}

/** The permission a route needs by default: its group's `read` for GET and HEAD, else `write`. */
export function defaultPermission(group: PermissionGroup, method: string): Permission {
  return `${group}:${method === 'GET' || method === 'HEAD' ? 'read' : 'write'}`;
}

/** PUBLISHABLE_PERMISSIONS as the document's descriptions say them: `` `catalog:read`, … ``. */
export function publishableReads(): string {
  return PUBLISHABLE_PERMISSIONS.map((p) => `\`${p}\``).join(', ');
}
