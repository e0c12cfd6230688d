'use strict';
// CPU profiles of the hot-path routes (`npm run bench:profile`): for each route, a server takes
// the load (pinned as in bench/run.js); after a warm-up, bench/profile-window.js profiles exactly
// the measured window. The profile's self time is summed by stage of a request (CPU µs per
// request: routing and guards, the key check, building the SQL, the wire and row parsing,
// mapping, JSON, HTTP, GC), by package and by function, with the statements sent per request and
// EXPLAIN of each. Profiles stay in bench/profiles/ (Chrome's DevTools or speedscope).
const { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { Client } = require('pg');
const { tmpdir } = require('node:os');
const { join, relative } = require('node:path');
const { ROOT, spawnNode, startServer, waitFor } = require('./lib');
const { measure } = require('./wrk');
const { KEY, startDatabase, seed, seedSession } = require('./fixture');
const { seedProducts } = require('./seed');

const PORT = 3940;
const OUT = join(__dirname, 'profiles');
const LIST = '/api/v2/sites/demo/content?limit=20';
const ROUTES = [
  // The yardstick (bench/run.js): bare http + pg, one prepared SELECT of the same 20 items.
  { name: 'floor', path: '/', floor: true },
  { name: 'health', path: '/health' },
  { name: 'list-cached', path: LIST },
  { name: 'list-nocache', path: LIST, env: { CONTENT_CACHE_TTL_MS: '0' } },
  { name: 'list-key', path: LIST, env: { CONTENT_CACHE_TTL_MS: '0' }, headers: { 'x-api-key': KEY } },
  { name: 'list-key-cached', path: LIST, headers: { 'x-api-key': KEY } },
  { name: 'slug-cached', path: '/api/v2/sites/demo/content/post-500' },
  { name: 'v1-pages', path: '/v1/demo/pages/20/0', headers: { 'x-api-key': KEY } },
  {
    name: 'v1-pages-nocache',
    path: '/v1/demo/pages/20/0',
    env: { CONTENT_CACHE_TTL_MS: '0' },
    headers: { 'x-api-key': KEY },
  },
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

/**
 * The stage of a request a sampled function belongs to, by where it is and what it is called.
 * In order: the first that matches wins.
 */
const STAGES = [
  ['garbage collection', (pkg, fn) => fn.startsWith('(garbage collector)')],
  [
    'JSON serialisation',
    (pkg, fn) => /^(stringify|JSONStringify|SerializeJSON)/.test(fn) || pkg === 'fast-safe-stringify',
  ],
  ['pg wire and row parsing', (pkg) => /^(pg|pg-protocol|pg-types|pg-pool|postgres-[a-z]+|packet-reader)$/.test(pkg)],
  ['row values (timestamps, ids)', (pkg, fn, url) => /pg-timestamps|id\.transformer/.test(url)],
  [
    'building the SQL, reading rows into entities',
    (pkg, fn, url) => pkg === 'typeorm' || /internals\/shaped-read|src\/database\//.test(url),
  ],
  ['the key check', (pkg, fn, url) => /src\/api-keys\/|credentials\.middleware|same-text/.test(url)],
  ['mapping (entities to answers)', (pkg, fn, url) => /\/dto\//.test(url) || /page\.js$/.test(url)],
  ['the public read cache', (pkg, fn, url) => /public-read-cache/.test(url)],
  [
    'routing, guards, pipes, interceptors',
    (pkg, fn, url) =>
      /^(router|express|@nestjs\/core|@nestjs\/common|@nestjs\/platform-express|rxjs|body-parser|on-headers|on-finished|parseurl|finalhandler|path-to-regexp|class-validator|class-transformer|es-toolkit|iterare|uid|qs)$/.test(
        pkg,
      ) || /src\/(common\/|http-pipeline)/.test(url),
  ],
  ['the module (controller, service, repository)', (pkg, fn, url) => /\/dist\/src\//.test(url)],
  [
    'HTTP and sockets (node)',
    (pkg, fn) =>
      /^node:(_http|net|internal\/stream|internal\/http|stream|internal\/streams)/.test(pkg) ||
      /^(writev|writeBuffer|writeUtf8String|utf8Write|onStreamRead)/.test(fn),
  ],
  ['Node internals (timers, events, promises)', (pkg) => pkg.startsWith('node:')],
];

/** The profile's self time by stage (µs per request and %), by package and by function. */
function summarize(file, requests) {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const self = new Map();
  const dt = prof.timeDeltas;
  prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0)));
  let total = 0;
  let idle = 0;
  const byFn = new Map();
  const byPkg = new Map();
  const byStage = new Map();
  for (const node of prof.nodes) {
    const t = self.get(node.id) ?? 0;
    const name = node.callFrame.functionName || '(anonymous)';
    if (name === '(idle)' || name === '(program)') {
      idle += t;
      continue;
    }
    total += t;
    const url = node.callFrame.url;
    const pkg = where(url).split('/').slice(0, 2).join('/');
    const stage = (STAGES.find(([, test]) => test(pkg, name, url)) ?? ['other (native and unattributed)'])[0];
    const fn = `${name} ${where(url)}:${node.callFrame.lineNumber + 1}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + t);
    byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + t);
    byStage.set(stage, (byStage.get(stage) ?? 0) + t);
  }
  const top = (m, n) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([k, v]) =>
          `  ${((v / total) * 100).toFixed(1).padStart(5)} %  ${(v / requests).toFixed(1).padStart(7)} µs  ${k}`,
      )
      .join('\n');
  const perRequest = total / requests;
  return {
    perRequest,
    stages: [...byStage].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / requests]),
    text:
      `CPU per request: ${perRequest.toFixed(0)} µs busy (${((idle / (idle + total)) * 100).toFixed(0)} % of the window idle)\n` +
      `by stage:\n${top(byStage, 20)}\nby package or folder:\n${top(byPkg, 15)}\nby function (self time):\n${top(byFn, 25)}`,
  };
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

/** bench/floor.js under the same hooks and pinning as a server; stop() ends it. */
async function startFloor(env, hooks) {
  const child = spawnNode([...hooks, join(__dirname, 'floor.js')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  await waitFor(`http://127.0.0.1:${env.PORT}/`);
  return {
    child,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
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
    const siteId = await seed(db.url);
    const session = { authorization: `Bearer ${await seedSession(db.url)}` };
    const seeded = { categoryId: await seedCategory(db.url) };
    const table = [];
    for (const route of ROUTES) {
      const dir = join(OUT, route.name);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const profileFile = join(dir, `${route.name}.cpuprofile`);
      const sqlFile = join(dataDir, `${route.name}.sql.jsonl`);
      const hooks = ['--require', join(__dirname, 'capture-sql.js'), '--require', join(__dirname, 'profile-window.js')];
      const env = { ...base, ...route.env, SQL_CAPTURE_FILE: sqlFile, PROFILE_FILE: profileFile };
      const server = route.floor
        ? await startFloor({ ...env, SITE_ID: String(siteId) }, hooks)
        : await startServer(env, { nodeArgs: hooks });
      const path = typeof route.path === 'function' ? route.path(seeded) : route.path;
      const target = `http://127.0.0.1:${PORT}${path}`;
      const headers = route.session ? session : route.headers;
      // Warm: the first seconds of a fresh server run at half speed (JIT, PostgreSQL's caches).
      await measure(target, { seconds: Number(process.env.PROFILE_WARMUP ?? 12), warmup: 0, headers });
      writeFileSync(sqlFile, ''); // what start-up and the warm-up sent is not the route's
      server.child.kill('SIGUSR2');
      const r = await measure(target, { seconds: 8, warmup: 0, headers });
      server.child.kill('SIGUSR2');
      for (let i = 0; i < 100 && !existsSync(`${profileFile}.json`); i++)
        await new Promise((ok) => setTimeout(ok, 100));
      await server.stop();
      const { statements } = JSON.parse(readFileSync(`${profileFile}.json`, 'utf8'));
      const summary = summarize(profileFile, r.requests);
      table.push({ route: route.name, rps: r.rps, ...summary, statements: statements / r.requests });
      console.log(
        `\n### ${route.name}: ${r.rps} req/s, p99 ${r.p99} ms, non-2xx ${r.non2xx}, ` +
          `${(statements / r.requests).toFixed(2)} statements per request\n${summary.text}`,
      );
      console.log(await explainAll(db.url, sqlFile));
    }
    const stages = [...new Set(table.flatMap((t) => t.stages.map(([k]) => k)))];
    const cell = (t, k) => (t.stages.find(([s]) => s === k)?.[1] ?? 0).toFixed(0);
    console.log(
      `\n| CPU µs per request | ${table.map((t) => t.route).join(' | ')} |\n|---|${table.map(() => '--:').join('|')}|\n` +
        stages.map((k) => `| ${k} | ${table.map((t) => cell(t, k)).join(' | ')} |`).join('\n') +
        `\n| **busy in all** | ${table.map((t) => `**${t.perRequest.toFixed(0)}**`).join(' | ')} |` +
        `\n| statements per request | ${table.map((t) => t.statements.toFixed(2)).join(' | ')} |` +
        `\n| req/s under the profiler | ${table.map((t) => t.rps).join(' | ')} |`,
    );
  } finally {
    if (db) await db.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
