import request from 'supertest';
import { WebhookEndpointEntity } from '../../src/webhooks/entities/webhook-endpoint.entity';
import { startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { contentUrl } from '../support/factories';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

const MASK = '********';
const SECRET = 'Bearer rcv_5e3b1c0a9d8f7e6d5c4b3a29';
const SECRET_2 = 'tok_second_0f1e2d3c4b5a6978';

/**
 * docs/webhooks.md, "Custom headers": header values are write-only. No answer of any route that
 * shows an endpoint (create, get, list, update, rotate-secret, test) carries a value, and the
 * receiver still gets it; a PATCH that sends the mask back keeps the stored value. On a database
 * of its own (docs/testing.md: a receiver's app must not share another file's endpoints).
 */
describe('webhook custom header values are write-only', () => {
  let t: TestApp;
  let a: Tenant;
  let rx: WebhookReceiver;
  const hooks = (rest = '') => `/api/v2/sites/${a.siteName}/webhooks${rest}`;
  const stored = async (id: number) =>
    (await t.db.getRepository(WebhookEndpointEntity).findOneByOrFail({ id })).headers;
  /** Every answer is checked: neither value appears anywhere in it, raw or JSON-escaped. */
  const answers: { label: string; text: string }[] = [];
  const seen = (res: request.Response) => {
    answers.push({ label: `${answers.length}: ${res.status}`, text: res.text });
    return res;
  };

  beforeAll(async () => {
    t = await startApp({
      databaseUrl: await createFreshDatabase('webhookheaders'),
      env: { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_ALLOW_HTTP: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1' },
    });
    a = await createTenant(t);
    rx = await startWebhookReceiver();
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });

  it('create, get, list, PATCH, rotate and test never show a value; the receiver gets it', async () => {
    const created = seen(
      await a.api
        .post(hooks())
        .send({ url: rx.url, eventTypes: ['content.created'], headers: { Authorization: SECRET, 'X-Team': 'web' } })
        .expect(201),
    );
    const id = created.body.id as number;
    expect(created.body.headers).toEqual({ Authorization: MASK, 'X-Team': MASK });
    expect(await stored(id)).toEqual({ Authorization: SECRET, 'X-Team': 'web' });

    const got = seen(await a.api.get(hooks(`/${id}`)).expect(200));
    expect(got.body.headers).toEqual({ Authorization: MASK, 'X-Team': MASK });
    const listed = seen(await a.api.get(hooks()).expect(200));
    expect(listed.body.data.find((e: { id: number }) => e.id === id).headers).toEqual({
      Authorization: MASK,
      'X-Team': MASK,
    });

    // A client sends its GET back with one change: the masked value keeps the stored one.
    const { id: _id, createdAt: _c, updatedAt: _u, status: _s, ...rest } = got.body;
    const roundTrip = seen(
      await a.api
        .patch(hooks(`/${id}`))
        .send({ url: rest.url, eventTypes: rest.eventTypes, headers: rest.headers, description: 'Round trip' })
        .expect(200),
    );
    expect(roundTrip.body).toEqual(
      expect.objectContaining({ description: 'Round trip', headers: { Authorization: MASK, 'X-Team': MASK } }),
    );
    expect(await stored(id)).toEqual({ Authorization: SECRET, 'X-Team': 'web' });

    // Without `headers` a PATCH keeps them; with them it replaces all, masks keeping values by name.
    seen(
      await a.api
        .patch(hooks(`/${id}`))
        .send({ description: 'No headers' })
        .expect(200),
    );
    expect(await stored(id)).toEqual({ Authorization: SECRET, 'X-Team': 'web' });
    const replaced = seen(
      await a.api
        .patch(hooks(`/${id}`))
        .send({ headers: { authorization: MASK, 'X-Extra': SECRET_2 } })
        .expect(200),
    );
    expect(replaced.body.headers).toEqual({ authorization: MASK, 'X-Extra': MASK });
    expect(await stored(id)).toEqual({ authorization: SECRET, 'X-Extra': SECRET_2 });

    seen(await a.api.post(hooks(`/${id}/rotate-secret`)).expect(200));
    const tested = seen(await a.api.post(hooks(`/${id}/test`)).expect(200));
    expect(tested.body).toEqual(expect.objectContaining({ ok: true, statusCode: 200 }));
    seen(await a.api.get(hooks(`/${id}/deliveries`)).expect(200));

    // The receiver gets the real values, on the test and on an event.
    await a.api.post(contentUrl(a)).send({ title: 'Header hello', status: 'published' }).expect(201);
    const received = await rx.waitFor(2);
    for (const r of received) {
      expect(r.headers.authorization).toBe(SECRET);
      expect(r.headers['x-extra']).toBe(SECRET_2);
    }

    expect(answers.length).toBe(9);
    for (const { label, text } of answers) {
      for (const value of [SECRET, SECRET_2, 'rcv_5e3b1c0a9d8f7e6d5c4b3a29'])
        expect({ label, has: text.includes(value) }).toEqual({ label, has: false });
    }
  });

  it('the mask is not a value: on create, or for a name not stored, it is a 400 and nothing changes', async () => {
    const create = await a.api.post(hooks()).send({ url: rx.url, headers: { Authorization: MASK } });
    expectProblem(create, 400, 'validation_failed');
    expect(create.body.errors).toEqual([
      { path: 'headers.Authorization', message: `is the masked placeholder ${MASK}; send the value` },
    ]);
    const made = await a.api
      .post(hooks())
      .send({ url: rx.url, eventTypes: ['content.deleted'], headers: { Authorization: SECRET } })
      .expect(201);
    const unknown = await a.api.patch(hooks(`/${made.body.id}`)).send({ headers: { 'X-New': MASK } });
    expectProblem(unknown, 400, 'validation_failed');
    expect(unknown.body.errors).toEqual([
      { path: 'headers.X-New', message: `is the masked placeholder ${MASK}; send the value` },
    ]);
    expect(await stored(made.body.id as number)).toEqual({ Authorization: SECRET });
  });
});
