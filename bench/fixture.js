'use strict';
// What bench/run.js and bench/profile.js share: an embedded PostgreSQL pinned beside the servers,
// and 1,000 published items of about 1 KB in site `demo`.
const { join } = require('node:path');
const { Client } = require('pg');
const { ROOT, PIN, ALL_CORES, pinDatabase } = require('./lib');

const KEY = 'sb_live_hotpathbenchhotpathbenchhotpath1234';
const ITEMS = 1000;
const PG_PORT = 54392;

/** An embedded PostgreSQL in `dir` on `port`, its postmaster (and so every backend) pinned to the server core. */
async function startDatabase(dir, port = PG_PORT) {
  const { startEmbeddedPostgres } = require(join(ROOT, 'dist/src/database/embedded'));
  const db = await startEmbeddedPostgres({ dir, port, database: 'sitebase', persistent: false });
  const pinned = pinDatabase(dir, PIN ? PIN.server[1][1] : ALL_CORES);
  return { ...db, pinned };
}

/** 1,000 published items of about 1 KB in site `demo`, one a minute apart. */
async function seed(url) {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const [{ id: siteId }] = (await db.query("SELECT id FROM sites WHERE name = 'demo'")).rows;
    const body = `<p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(13)}</p>`;
    const start = Date.parse('2026-01-01T00:00:00.000Z');
    await db.query(
      `INSERT INTO content_items (site_id, type, title, slug, content, excerpt, status, published_at, tags, categories, authors, created_at, updated_at, version)
       SELECT $1, 'post', 'Post number ' || i, 'post-' || i, $2, 'An excerpt of post ' || i, 'published',
              to_timestamp($3::float8 / 1000 + i * 60), ARRAY['news','guides'], ARRAY['blog'],
              '[{"id": 7, "name": "Ada Lovelace"}]'::jsonb, to_timestamp($3::float8 / 1000 + i * 60),
              to_timestamp($3::float8 / 1000 + i * 60), 1
         FROM generate_series(1, $4::int) AS i`,
      [siteId, body, start, ITEMS],
    );
    await db.query('VACUUM ANALYZE content_items');
    return Number(siteId);
  } finally {
    await db.end();
  }
}

/**
 * A site user of `demo` with a session, written as the users module writes them (the token's
 * SHA-256 stored, the token kept by the caller): answers the bearer token for GET /users/me.
 */
async function seedSession(url) {
  const { createHash, randomBytes } = require('node:crypto');
  const token = `sbs_${randomBytes(32).toString('base64url')}`;
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const [{ id: userId, site_id: siteId }] = (
      await db.query(
        `INSERT INTO site_users (site_id, email, name, metadata)
         SELECT id, 'member@example.com', 'Ada Member', '{"plan": "gold"}' FROM sites WHERE name = 'demo'
         RETURNING id, site_id`,
      )
    ).rows;
    await db.query(
      `INSERT INTO user_sessions (site_id, user_id, token_hash, expires_at) VALUES ($1, $2, $3, now() + interval '1 day')`,
      [siteId, userId, createHash('sha256').update(token).digest('hex')],
    );
    return token;
  } finally {
    await db.end();
  }
}

async function statements(url) {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query(
      'SELECT xact_commit + xact_rollback AS n, tup_inserted + tup_updated AS w FROM pg_stat_database WHERE datname = current_database()',
    );
    return { xacts: Number(rows[0].n), writes: Number(rows[0].w) };
  } finally {
    await db.end();
  }
}

module.exports = { KEY, ITEMS, startDatabase, seed, seedSession, statements };
