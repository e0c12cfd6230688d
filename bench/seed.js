'use strict';
// Realistic data for bench/all.js and bench/soak.js: plain SQL, as the modules write their rows
// (a bench measures the routes, not the seeding). Each seeder takes a range of numbers, so a
// table can be grown in steps.
const { createHash, randomBytes } = require('node:crypto');
const { join } = require('node:path');
const { ROOT } = require('./lib');

async function siteOf(db, name) {
  const { rows } = await db.query('SELECT id, account_id FROM sites WHERE name = $1', [name]);
  return { id: Number(rows[0].id), accountId: Number(rows[0].account_id) };
}

async function seedContent(db, siteId, from, to, prefix) {
  const body = `<p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(13)}</p>`;
  await db.query(
    `INSERT INTO content_items (site_id, type, title, slug, content, excerpt, status, published_at, tags, categories, authors, created_at, updated_at, version)
     SELECT $1, 'post', 'Post number ' || i, $5 || i, $2, 'An excerpt of post ' || i, 'published',
            timestamptz '2026-01-01' + i * interval '1 minute', ARRAY['news','guides'], ARRAY['blog'],
            '[{"id": 7, "name": "Ada Lovelace"}]'::jsonb, timestamptz '2026-01-01' + i * interval '1 minute',
            timestamptz '2026-01-01' + i * interval '1 minute', 1
       FROM generate_series($3::int, $4::int) AS i`,
    [siteId, body, from, to, prefix],
  );
}

async function seedProducts(db, siteId, from, to, categoryId = null) {
  const description = 'A hand-thrown stoneware piece, glazed in the studio. '.repeat(4);
  await db.query(
    `INSERT INTO products (site_id, category_id, name, slug, description, status, unit_amount, currency, position, quantity_available)
     SELECT $1, $5, 'Product ' || i, 'product-' || i, $2, 'published', 1000 + i % 5000, 'EUR', i, 1000000000
       FROM generate_series($3::int, $4::int) AS i`,
    [siteId, description, from, to, categoryId],
  );
}

async function seedSubscriptions(db, siteId, from, to, listId = null) {
  await db.query(
    `INSERT INTO newsletter_subscriptions (site_id, email, name, attributes, source, manage_nonce, consent_at, created_at, updated_at)
     SELECT $1, 'reader' || g || '@bench.example', 'Reader ' || g,
            jsonb_build_object('plan', CASE WHEN g % 3 = 0 THEN 'pro' ELSE 'free' END), 'import',
            md5(g::text), now(), now(), now()
       FROM generate_series($2::int, $3::int) g`,
    [siteId, from, to],
  );
  if (listId !== null)
    await db.query(
      `INSERT INTO newsletter_memberships (subscription_id, list_id, site_id, status, subscribed_at)
       SELECT id, $2, $1, 'active', now() FROM newsletter_subscriptions
        WHERE site_id = $1 AND email LIKE 'reader%' AND NOT EXISTS (
          SELECT 1 FROM newsletter_memberships m WHERE m.subscription_id = newsletter_subscriptions.id AND m.list_id = $2)`,
      [siteId, listId],
    );
}

async function seedUsers(db, siteId, from, to) {
  await db.query(
    `INSERT INTO site_users (site_id, email, name, metadata, created_at, updated_at)
     SELECT $1, 'member' || g || '@bench.example', 'Member ' || g, '{"plan": "gold"}',
            timestamptz '2026-01-01' + g * interval '1 second', now()
       FROM generate_series($2::int, $3::int) g`,
    [siteId, from, to],
  );
}

/** A session for every seeded user of the site; answers the bearer tokens. */
async function seedSessions(db, siteId, count) {
  const tokens = Array.from({ length: count }, () => `sbs_${randomBytes(32).toString('base64url')}`);
  const hashes = tokens.map((t) => createHash('sha256').update(t).digest('hex'));
  await db.query(
    `INSERT INTO user_sessions (site_id, user_id, token_hash, expires_at)
     SELECT $1, u.id, h.hash, now() + interval '1 day'
       FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM site_users WHERE site_id = $1) u
       JOIN unnest($2::text[]) WITH ORDINALITY AS h(hash, n) ON h.n = u.n`,
    [siteId, hashes],
  );
  return tokens;
}

async function seedOrders(db, site, from, to) {
  // Numbered after the site's own orders (a fresh start's demo site has some).
  const { rows } = await db.query(`SELECT coalesce(max(number), 0)::int AS n FROM orders WHERE site_id = $1`, [
    site.id,
  ]);
  const offset = rows[0].n - from + 1;
  await db.query(
    `INSERT INTO orders (site_id, account_id, number, payment_status, currency, subtotal_amount, tax_amount, total_amount,
                         customer_email, customer_name, created_at, updated_at)
     SELECT $1, $2, g + $5, 'paid', 'EUR', 3700, 0, 3700, 'customer' || (g % 5000) || '@example.com', 'Bench Customer',
            timestamptz '2026-01-01' + g * interval '1 second', now()
       FROM generate_series($3::int, $4::int) g`,
    [site.id, site.accountId, from, to, offset],
  );
  await db.query(
    `INSERT INTO order_numbers (site_id, last_number) VALUES ($1, $2)
     ON CONFLICT (site_id) DO UPDATE SET last_number = EXCLUDED.last_number`,
    [site.id, to + offset],
  );
}

async function seedContacts(db, siteId, from, to) {
  await db.query(
    `INSERT INTO contacts (site_id, name, email, subject, message, created_at, updated_at)
     SELECT $1, 'Visitor ' || g, 'visitor' || g || '@example.com', 'A question', 'Hello, I would like to know more.',
            timestamptz '2026-01-01' + g * interval '1 second', now()
       FROM generate_series($2::int, $3::int) g`,
    [siteId, from, to],
  );
}

async function seedMedia(db, siteId, from, to) {
  await db.query(
    `INSERT INTO media_items (site_id, storage_key, file_name, content_type, filesize, width, height, title, created_at, updated_at)
     SELECT $1, 'bench/' || $1::bigint || '/' || g || '.jpg', 'photo-' || g || '.jpg', 'image/jpeg', 200000, 1200, 800,
            'Photo ' || g, timestamptz '2026-01-01' + g * interval '1 second', now()
       FROM generate_series($2::int, $3::int) g`,
    [siteId, from, to],
  );
}

/**
 * A campaign already sent to the site's first `count` subscriptions (their recipients rows
 * delivered an hour ago, so opens now are people's, not machines'), with the site's signing key;
 * answers the campaign and one open-tracking path per recipient.
 */
async function seedSentCampaign(db, siteId, listId, count, siteName) {
  const { rows: campaign } = await db.query(
    `INSERT INTO newsletter_campaigns (site_id, name, slug, subject, list_ids, status, sent_at, recipient_count)
     VALUES ($1, 'Bench campaign', 'bench-campaign', 'Hello', $2, 'sent', now() - interval '1 hour', $3) RETURNING id`,
    [siteId, [listId], count],
  );
  const campaignId = Number(campaign[0].id);
  await db.query(`INSERT INTO newsletter_campaign_stats (campaign_id, site_id) VALUES ($1, $2)`, [campaignId, siteId]);
  await db.query(
    `INSERT INTO newsletter_campaign_recipients (campaign_id, subscription_id, site_id, created_at, delivered_at)
     SELECT $1, id, $2, now() - interval '1 hour', now() - interval '1 hour'
       FROM newsletter_subscriptions WHERE site_id = $2 ORDER BY id LIMIT $3`,
    [campaignId, siteId, count],
  );
  await db.query(
    `INSERT INTO newsletter_signing_keys (site_id, secret) VALUES ($1, $2) ON CONFLICT (site_id) DO NOTHING`,
    [siteId, randomBytes(32)],
  );
  const [{ secret }] = (await db.query('SELECT secret FROM newsletter_signing_keys WHERE site_id = $1', [siteId])).rows;
  const { rows } = await db.query('SELECT subscription_id FROM newsletter_campaign_recipients WHERE campaign_id = $1', [
    campaignId,
  ]);
  const { encodeTrackingToken } = require(join(ROOT, 'dist/src/newsletter/tracking/tracking-tokens'));
  const openPaths = rows.map(
    (r) =>
      `/api/v2/sites/${siteName}/newsletter/track/open/${encodeTrackingToken(secret, {
        kind: 'open',
        campaignId,
        subscriptionId: Number(r.subscription_id),
      })}`,
  );
  return { campaignId, openPaths };
}

module.exports = {
  siteOf,
  seedContent,
  seedProducts,
  seedSubscriptions,
  seedUsers,
  seedSessions,
  seedOrders,
  seedContacts,
  seedMedia,
  seedSentCampaign,
};
