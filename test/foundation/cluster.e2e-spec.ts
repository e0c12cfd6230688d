import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { entryCommand } from '../support/compiled-entry';
import { createFreshDatabase, freePort } from '../support/databases';

/**
 * docs/performance.md, "Every core": `WORKERS=2` runs the real entry point (src/main.ts) as a
 * node cluster on one database: both workers serve the port, a key revoked through one fails on
 * every worker at once, the public rate limit holds across them, a worker that dies is started
 * again, and SIGTERM stops them all.
 */

const ROOT = join(__dirname, '..', '..');
const main = entryCommand('src/main.ts');
const KEY = 'sb_live_clusterclusterclustercluster12345';
const LIMIT = 8;
const METRICS_TOKEN = 'cluster-metrics-token-0123456789';

interface Answer {
  status: number;
  body: string;
}

describe('WORKERS=2: one server per core on one port and one database', () => {
  let server: ChildProcess;
  let port: number;
  let metricsPort: number;
  let output = '';
  const noKeepAlive = new Agent({ keepAlive: false });

  /** One request on a connection of its own, so the cluster may hand it to either worker. */
  function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          agent: noKeepAlive,
          headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  const workerPids = () =>
    execFileSync('ps', ['-o', 'pid=', '--ppid', String(server.pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);

  async function until(check: () => boolean, what: string, ms = 180_000): Promise<void> {
    const end = Date.now() + ms;
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; output:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const listening = () => output.match(/worker \d listening/g)?.length ?? 0;

  beforeAll(async () => {
    port = await freePort();
    metricsPort = await freePort();
    server = spawn(main.command, main.args, {
      cwd: ROOT,
      env: {
        ...process.env,
        WORKERS: '2',
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: await createFreshDatabase('cluster'),
        BOOTSTRAP_API_KEY: KEY,
        BOOTSTRAP_SITE: 'demo',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PUBLIC_MAX: String(LIMIT),
        SMTP_URL: '',
        METRICS_TOKEN,
        METRICS_PORT: String(metricsPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    server.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    await until(() => listening() >= 2, 'two workers listening');
  }, 200_000);

  afterAll(async () => {
    if (server.exitCode === null) {
      server.kill('SIGKILL');
      for (const pid of workerPids()) process.kill(pid, 'SIGKILL');
    }
  });

  it('runs two workers under one primary, both serving the port', async () => {
    expect(workerPids()).toHaveLength(2);
    const answers = await Promise.all(Array.from({ length: 10 }, () => call('GET', '/health')));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
  });

  it('a scrape, on METRICS_PORT or on the main port through either worker, sees both workers summed', async () => {
    const healthCount = (text: string) =>
      Number(
        /^sitebase_http_requests_total\{method="GET",route="\/health",status_class="2xx"\} (\d+)$/m.exec(text)?.[1],
      );
    const own = await new Promise<Answer>((resolve, reject) => {
      request({ host: '127.0.0.1', port: metricsPort, path: '/metrics', agent: noKeepAlive }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      })
        .on('error', reject)
        .end();
    });
    expect(own.status).toBe(200);
    // The ten /health calls of the test before went to both workers, about five each.
    expect(healthCount(own.body)).toBeGreaterThanOrEqual(10);
    const main = await Promise.all(
      Array.from({ length: 4 }, () => call('GET', '/metrics', { authorization: `Bearer ${METRICS_TOKEN}` })),
    );
    expect(main.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    for (const a of main) expect(healthCount(a.body)).toBeGreaterThanOrEqual(10);
    expect((await call('GET', '/metrics')).status).toBe(401);
  });

  it('a key revoked through one worker fails on every worker at once', async () => {
    const made = await call('POST', '/api/v2/api-keys', { 'x-api-key': KEY }, { name: 'short-lived' });
    expect(made.status).toBe(201);
    const { id, key } = JSON.parse(made.body) as { id: number; key: string };
    const sites = () => call('GET', '/api/v2/sites', { 'x-api-key': key });
    // Used on both workers (ten connections, handed out in turn), so both have it cached.
    expect((await Promise.all(Array.from({ length: 10 }, sites))).map((a) => a.status)).toEqual(Array(10).fill(200));
    expect((await call('DELETE', `/api/v2/api-keys/${id}`, { 'x-api-key': KEY })).status).toBe(204);
    // The cache drops it at commit (NOTIFY): a short moment for the other worker to hear it.
    await new Promise((r) => setTimeout(r, 300));
    const after = await Promise.all(Array.from({ length: 10 }, sites));
    expect(after.map((a) => a.status)).toEqual(Array(10).fill(401));
  });

  it('the public rate limit is one limit across the workers, within its documented slack', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3 * LIMIT; i++) statuses.push((await call('GET', '/api/v2/sites/demo/content')).status);
    // docs/foundation.md, "Slack with N instances": at most N x limit/2 hits past the limit.
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(LIMIT + 2 * (LIMIT / 2));
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(LIMIT);
    // Once blocked, blocked on both workers: the last third are all refused.
    expect(statuses.slice(2 * LIMIT)).toEqual(Array(LIMIT).fill(429));
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
  });

  it('a worker that dies is started again, and the port keeps answering', async () => {
    const [victim] = workerPids();
    process.kill(victim, 'SIGKILL');
    await until(() => /worker \d exited \(SIGKILL\); starting it again/.test(output), 'the exit to be noticed');
    await until(() => listening() >= 3, 'the worker to start again');
    const pids = workerPids();
    expect(pids).toHaveLength(2);
    expect(pids).not.toContain(victim);
    expect((await call('GET', '/health')).status).toBe(200);
  }, 200_000);

  it('SIGTERM stops every worker, then the primary', async () => {
    const pids = workerPids();
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    const alive = pids.filter((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
    expect(alive).toEqual([]);
    expect(output).toMatch(/stopping its 2 workers \(SIGTERM\)/);
  }, 60_000);
});
