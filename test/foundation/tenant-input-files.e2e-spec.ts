import type { AddressInfo } from 'node:net';
import { startApp, TestApp } from '../support/app';
import { sendToListener } from '../support/bounces';
import { createFreshDatabase, freePort } from '../support/databases';
import { snapshotDatabase } from '../support/db-snapshot';
import { makePngHeader, tempMediaDir } from '../support/files';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';
import { whileHealthPolled } from '../support/health-poll';
import { makeList, nl } from '../support/newsletter';

const DOMAIN = 'bounces.tenantinput.test';

/**
 * The rest of docs/security.md's "Work on tenant input": images (sharp), CSV imports (csv-parse)
 * and MIME reports from strangers (mailparser), each fed its worst case through the real route
 * or listener while `/health` is polled. Their bounds were in place before issue 42 (these tests
 * pass on a1c051b); they keep them.
 */
describe('work on tenant input: files and reports', () => {
  const media = tempMediaDir('tenantinput');
  let t: TestApp;
  let a: Tenant;
  let base: string;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    t = await startApp({
      databaseUrl: await createFreshDatabase('tenantinputfiles'),
      env: {
        MEDIA_LOCAL_DIR: media.dir,
        MAIL_FROM: 'Sitebase <no-reply@sitebase.test>',
        BOUNCE_DOMAIN: DOMAIN,
        BOUNCE_SMTP_PORT: String(port),
        BOUNCE_SMTP_HOST: '127.0.0.1',
      },
    });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.server.address() as AddressInfo).port}`;
    a = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    media.remove();
  });

  it('sharp: a PNG that claims 30000 × 30000 pixels is refused before decoding', async () => {
    const before = await snapshotDatabase(t.db);
    const res = await whileHealthPolled(base, 'sharp, a 900-megapixel PNG header', () =>
      a.api.post(`/api/v2/sites/${a.siteName}/media`).attach('file', makePngHeader(30_000, 30_000), 'bomb.png'),
    );
    expectProblem(res, 413, 'image_too_large');
    expect(await snapshotDatabase(t.db)).toEqual(before);
  }, 120_000);

  it('csv-parse: a record over 64 KB is a 400; 1,000 rows of 2,000 fields are read', async () => {
    const list = await makeList(a, { name: 'Wide' });
    const importFile = (csv: string) =>
      a.api
        .post(nl(a, '/subscriptions/import'))
        .field('listIds', String(list.id))
        .field('consent', 'true')
        .field('columns', JSON.stringify({ email: 'email' }))
        .attach('file', Buffer.from(csv), 'people.csv');
    const before = await snapshotDatabase(t.db);
    const long = await whileHealthPolled(base, 'csv-parse, a 1 MB quoted field', () =>
      importFile(`email\r\n"${'a""'.repeat(350_000)}"\r\n`),
    );
    expectProblem(long, 400, 'invalid_file');
    expect(await snapshotDatabase(t.db)).toEqual(before);
    const wide = await whileHealthPolled(base, 'csv-parse, 1,000 rows × 2,000 fields', () =>
      importFile(
        'email\r\n' + Array.from({ length: 1000 }, (_, i) => `wide${i}@example.com${','.repeat(2000)}`).join('\r\n'),
      ),
    );
    expect(wide.status).toBe(200);
    expect(wide.body).toMatchObject({ status: 'completed', rowsRead: 1000, created: 1000 });
  }, 300_000);

  it('mailparser: a report of 40,000 header lines and MIME nested 2,000 deep to the bounce listener', async () => {
    const before = await snapshotDatabase(t.db);
    let nested = '';
    for (let i = 0; i < 2000; i++) nested += `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n`;
    const raw =
      'From: mailer-daemon@elsewhere.example\r\nTo: bounces@' +
      DOMAIN +
      '\r\nSubject: x\r\n' +
      'X-Filler: =?utf-8?b?YWJj?= =?utf-8?q?a=20b?=\r\n'.repeat(40_000) +
      'MIME-Version: 1.0\r\n' +
      nested +
      'x\r\n';
    const answer = await whileHealthPolled(base, `mailparser, ${Math.round(raw.length / 1024)} KB report`, () =>
      sendToListener(port, `bounces@${DOMAIN}`, raw).then(
        (info) => `accepted ${info.response}`,
        (err: Error) => `refused ${err.message}`,
      ),
    );
    // Accepted (and read as no report) or refused for its size: either way nothing is recorded.
    expect(answer).toMatch(/^(accepted 250|refused .*55\d)/);
    expect(await snapshotDatabase(t.db)).toEqual(before);
  }, 300_000);
});
