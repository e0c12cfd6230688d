'use strict';
// CPU profiles of the hot-path routes (`npm run bench:profile`): for each route, a server under
// `node --cpu-prof` takes wrk's load (pinned as in bench/run.js), then the profile's self time is
// summed by function and by package. Profiles stay in bench/profiles/ (open them in Chrome's
// DevTools or speedscope); the summary is printed.
const { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { Client } = require('pg');
const { tmpdir } = require('node:os');
const { join, relative } = require('node:path');
const { ROOT, startServer } = require('./lib');
const { measure } = require('./wrk');
const { KEY, startDatabase, seed, seedSession } = require('./fixture');
const { seedProducts } = require('./seed');

const PORT = 3940;
const OUT = join(__dirname, 'profiles');
const LIST = '/api/v2/sites/demo/content?limit=20';
const ROUTES = [
  { name: 'health', path: '/health' },
  { name: 'list-cached', path: LIST },
  { name: 'list-nocache', path: LIST, env: { CONTENT_CACHE_TTL_MS: '0' } },
  { name: 'list-key', path: LIST, env: { CONTENT_CACHE_TTL_MS: '0' }, headers: { 'x-api-key': KEY } },
  { name: 'slug-cached', path: '/api/v2/sites/demo/content/post-500' },
  { name: 'v1-pages', path: '/v1/demo/pages/20/0', headers: { 'x-api-key': KEY } },
  { name: 'v1-category', path: (s) => `/v1/demo/product_category/${s.categoryId}`, headers: { 'x-api-key': KEY } },
  { name: 'me', path: '/api/v2/sites/demo/users/me', session: true },
  { name: 'flood-429', path: LIST, env: { RATE_LIMIT_PUBLIC_MAX: '120' } },
].filter((r) => !process.env.ROUTES || process.env.ROUTES.split(',').includes(r.name));

function where(url) {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return url;
  if (url.includes('/dist/')) return relative(join(ROOT, 'dist'), url.replace('file://', ''));
  return url;
}

function summarize(file) {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const self = new Map();
  const dt = prof.timeDeltas;
  prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0)));
  let total = 0;
  const byFn = new Map();
  const byPkg = new Map();
  for (const node of prof.nodes) {
    const t = self.get(node.id) ?? 0;
    if (node.callFrame.functionName === '(idle)' || node.callFrame.functionName === '(program)') continue;
    total += t;
    const pkg = where(node.callFrame.url).split('/').slice(0, 2).join('/');
    const fn = `${node.callFrame.functionName || '(anonymous)'} ${where(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + t);
    byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + t);
  }
  const top = (m, n) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `  ${((v / total) * 100).toFixed(1).padStart(5)} %  ${k}`)
      .join('\n');
  return `by package or folder:\n${top(byPkg, 15)}\nby function (self time):\n${top(byFn, 25)}`;
}

/** EXPLAIN (ANALYZE, BUFFERS) of each statement a route sent (reads only; writes are listed). */
async function explainAll(url, sqlFile) {
  const statements = readFileSync(sqlFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  if (statements.length === 0) return 'statements: none';
  const db = new Client({ connectionString: url });
  await db.connect();
  const out = [`statements: ${statements.length}`];
  try {
    for (const { text, params } of statements) {
      out.push(`  SQL: ${text.replace(/\s+/g, ' ').slice(0, 400)}`);
      if (!/^\s*(SELECT|WITH)/i.test(text)) continue;
      const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params);
      out.push(...rows.map((r) => `    ${r['QUERY PLAN']}`));
    }
  } finally {
    await db.end();
  }
  return out.join('\n');
}

/** One product category of 50 published products, as `npm run bench` seeds it. */
async function seedCategory(url) {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const [{ id: siteId }] = (await db.query(`SELECT id FROM sites WHERE name = 'demo'`)).rows;
    const [{ id }] = (
      await db.query(
        `INSERT INTO product_categories (site_id, name, slug) VALUES ($1, 'Stoneware', 'stoneware') RETURNING id`,
        [siteId],
      )
    ).rows;
    await seedProducts(db, siteId, 1, 50, id);
    return Number(id);
  } finally {
    await db.end();
  }
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sitebase-profile-'));
  chmodSync(dataDir, 0o755);
  mkdirSync(OUT, { recursive: true });
  let db;
  try {
    db = await startDatabase(join(dataDir, 'pg'));
    const base = {
      DATABASE_URL: db.url,
      BOOTSTRAP_API_KEY: KEY,
      BOOTSTRAP_SITE: 'demo',
      LOG_LEVEL: 'warn',
      PORT: String(PORT),
      RATE_LIMIT_PUBLIC_MAX: '1000000000',
    };
    await (await startServer(base)).stop();
    await seed(db.url);
    const session = { authorization: `Bearer ${await seedSession(db.url)}` };
    const seeded = { categoryId: await seedCategory(db.url) };
    for (const route of ROUTES) {
      const dir = join(OUT, route.name);
      rmSync(dir, { recursive: true, force: true });
      const sqlFile = join(dataDir, `${route.name}.sql.jsonl`);
      const server = await startServer(
        { ...base, ...route.env, SQL_CAPTURE_FILE: sqlFile },
        {
          nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--require', join(__dirname, 'capture-sql.js')],
        },
      );
      writeFileSync(sqlFile, ''); // what start-up sent is not the route's
      const path = typeof route.path === 'function' ? route.path(seeded) : route.path;
      const r = await measure(`http://127.0.0.1:${PORT}${path}`, {
        seconds: 8,
        warmup: 2,
        headers: route.session ? session : route.headers,
      });
      await server.stop();
      const file = join(
        dir,
        readdirSync(dir).find((f) => f.endsWith('.cpuprofile')),
      );
      console.log(`\n### ${route.name}: ${r.rps} req/s, p99 ${r.p99} ms, non-2xx ${r.non2xx}\n${summarize(file)}`);
      console.log(await explainAll(db.url, sqlFile));
    }
  } finally {
    if (db) await db.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
