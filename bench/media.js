'use strict';
// Media benchmark (issue 3): uploads of a 4 MB JPEG (4000x3000) that gets three thumbnails
// (150, 600, 1200 wide), one at a time and 8 at once, and the peak RSS of the server process
// while 8 uploads run together (target < 400 MB).
// Usage: npm run build && node bench/media.js   (writes the media section of docs/benchmarks.md)
// Database: DATABASE_URL's server when set (a throwaway database is created beside it and
// dropped), else an embedded PostgreSQL in a temp folder.
const { chmodSync, mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir, cpus } = require('node:os');
const { join } = require('node:path');
const sharp = require('sharp');
const { startServer, writeSection, median, benchDatabase } = require('./lib');

const PORT = 3910;
const KEY = 'sb_live_mediabenchmediabenchmediabench1234';
const SEQUENTIAL = 10;
const CONCURRENCY = 8;
const CONCURRENT_TOTAL = 24;
const RSS_TARGET_MB = 400;

/** A 4000x3000 JPEG of about 4 MB: a gradient with deterministic noise (photos do not compress to nothing). */
async function makeJpeg() {
  const width = 4000;
  const height = 3000;
  const raw = Buffer.alloc(width * height * 3);
  let seed = 12345;
  for (let i = 0; i < raw.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const px = i / 3;
    const x = px % width;
    const y = Math.floor(px / width);
    const base = (x * 255) / width + (y * 128) / height + (i % 3) * 40;
    raw[i] = Math.max(0, Math.min(255, (base | 0) + ((seed >> 16) % 62) - 31));
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
}

function rssMb(pid, field = 'VmRSS') {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
}

async function upload(jpeg, i) {
  const form = new FormData();
  form.append('file', new Blob([jpeg], { type: 'image/jpeg' }), `bench-${i}.jpg`);
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${PORT}/api/v2/sites/demo/media`, {
    method: 'POST',
    headers: { 'x-api-key': KEY },
    body: form,
  });
  const body = await res.json();
  const ms = performance.now() - started;
  if (res.status !== 201 || body.thumbnails.length !== 3 || body.size !== '4000x3000') {
    throw new Error(`upload ${i}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
  return ms;
}

function stats(latencies, wallMs) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const p95 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)];
  return {
    n: latencies.length,
    median: Math.round(median(latencies)),
    p95: Math.round(p95),
    max: Math.round(sorted[sorted.length - 1]),
    perSecond: (latencies.length / (wallMs / 1000)).toFixed(2),
    mbPerSecond: 0,
  };
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sitebase-bench-media-'));
  chmodSync(dataDir, 0o755); // as root, embedded PostgreSQL runs as its own user
  const db = await benchDatabase('media', dataDir, 54392);
  const jpeg = await makeJpeg();
  const env = {
    ...db.env,
    PORT: String(PORT),
    BOOTSTRAP_API_KEY: KEY,
    BOOTSTRAP_SITE: 'demo',
    MEDIA_STORAGE: 'local',
    MEDIA_LOCAL_DIR: join(dataDir, 'media'),
    MEDIA_THUMBNAIL_WIDTHS: '150,600,1200',
    PUBLIC_BASE_URL: `http://127.0.0.1:${PORT}`,
  };
  let server;
  try {
    server = await startServer(env, { pin: false }); // image work wants every core
    const pid = server.child.pid;
    await upload(jpeg, 0); // warm-up: first decode loads libvips code paths
    const idleRss = rssMb(pid);

    const seq = [];
    const seqStart = performance.now();
    for (let i = 1; i <= SEQUENTIAL; i++) seq.push(await upload(jpeg, i));
    const seqStats = stats(seq, performance.now() - seqStart);

    let peak = rssMb(pid);
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(pid));
    }, 10);
    const conc = [];
    let next = 0;
    const concStart = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < CONCURRENT_TOTAL) {
          const i = next++;
          conc.push(await upload(jpeg, 100 + i));
        }
      }),
    );
    const concWall = performance.now() - concStart;
    clearInterval(sampler);
    const concStats = stats(conc, concWall);
    const hwm = rssMb(pid, 'VmHWM');
    const sizeMb = jpeg.length / 1048576;
    seqStats.mbPerSecond = (Number(seqStats.perSecond) * sizeMb).toFixed(1);
    concStats.mbPerSecond = (Number(concStats.perSecond) * sizeMb).toFixed(1);

    const row = (label, s) =>
      `| ${label} | ${s.n} | ${s.median} | ${s.p95} | ${s.max} | ${s.perSecond} | ${s.mbPerSecond} |`;
    const md = `## Media uploads (issue 3)

Run: ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} cores, ${db.label}, local storage. \`npm run build && node bench/media.js\`.

Each upload: \`POST /api/v2/sites/demo/media\`, one ${sizeMb.toFixed(2)} MB JPEG of 4000x3000 pixels, type sniffed, header probed, three thumbnails (150, 600, 1200 wide) rendered and stored, four rows and an event written. Every response checked (201, 3 thumbnails). MEDIA_PROCESSING_CONCURRENCY=2 (default).

| run | uploads | median ms | p95 ms | max ms | uploads/s | MB/s in |
|---|---|---|---|---|---|---|
${row('sequential', seqStats)}
${row(`${CONCURRENCY} concurrent`, concStats)}

**Server RSS**: ${idleRss.toFixed(0)} MB after warm-up; peak while ${CONCURRENCY} uploads ran at once **${peak.toFixed(0)} MB** (sampled every 10 ms; kernel high-water mark for the whole run ${hwm.toFixed(0)} MB). Target < ${RSS_TARGET_MB} MB: ${Math.max(peak, hwm) < RSS_TARGET_MB ? 'met' : 'NOT met'}.`;
    writeSection('media', md);
    console.log(md);
  } finally {
    if (server) await server.stop();
    await db.drop().catch((err) => console.error('could not drop the bench database', err.message));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
