import { randomBytes } from 'node:crypto';
import { deriveKey } from '../common/crypto/seal';
import { MailHtml } from '../common/html/mail-html';
import { BUILTIN_TEMPLATE_TYPES } from './builtin-template-types';
import { EmailRenderer } from './email-renderer';
import {
  checkSecretMarks,
  mailSecret,
  redactData,
  revealCopy,
  sealSecrets,
  secretFaults,
  secretsContext,
  secretVariables,
  withSecrets,
} from './mail-secrets';
import type { EmailTemplateType } from './template-types';

const type = (name: string) => BUILTIN_TEMPLATE_TYPES.find((t) => t.type === name)!;
const site = { name: 'demo', title: 'Demo & Co' };
const defaultParts = (t: EmailTemplateType) => ({ ...t.defaultTemplate, text: t.defaultTemplate.text ?? null });

describe('secrets in mail', () => {
  const mailHtml = new MailHtml();
  const renderer = new EmailRenderer(mailHtml);
  afterAll(() => mailHtml.onModuleDestroy());

  it('the built-in types mark their codes and links secret', () => {
    expect(secretVariables(type('users.otp'))).toEqual(['code']);
    expect(secretVariables(type('newsletter.confirmation'))).toEqual(['confirmUrl']);
    expect(secretVariables(type('newsletter.campaign'))).toEqual(['unsubscribeUrl']);
    expect(secretVariables(type('custom'))).toEqual([]);
  });

  it('renders once with placeholders; the stored copy has no code, the filled copy is the plain render', async () => {
    const otp = type('users.otp');
    const data = { code: '482913', expiresInMinutes: 10, userName: 'Ada' };
    const { data: redacted, secrets } = redactData(otp, data, undefined);
    expect(redacted).toEqual({ ...data, code: '[redacted:code]' });
    expect(secrets).toEqual({ code: '482913' });
    const stored = await renderer.render(defaultParts(otp), { ...redacted, site });
    expect(JSON.stringify(stored)).not.toContain('482913');
    expect(stored.html).toContain('[redacted:code]');
    expect(stored.subject).toBe('Your sign-in code for Demo & Co');
    const plain = await renderer.render(defaultParts(otp), { ...data, site });
    expect(revealCopy({ ...stored, headers: null }, secrets!)).toEqual({ ...plain, headers: null });
  });

  it('fills HTML-escaped in the HTML, as is in text, on one line in the subject and headers', () => {
    const secrets = { link: 'https://x.example/a?b=1&c="2"', many: 'one\r\ntwo' };
    const filled = revealCopy(
      {
        subject: `S ${mailSecret('many')}`,
        html: `<a href="${mailSecret('link')}">go</a> [REDACTED:LINK] [redacted:unknown]`,
        text: `Go: ${mailSecret('link')}`,
        headers: { 'List-Unsubscribe': `<${mailSecret('link')}>`, 'X-Many': mailSecret('many') },
      },
      secrets,
    );
    expect(filled).toEqual({
      subject: 'S one two',
      html: '<a href="https://x.example/a?b=1&amp;c=&#34;2&#34;">go</a> https://x.example/a?b=1&amp;c=&#34;2&#34; [redacted:unknown]',
      text: 'Go: https://x.example/a?b=1&c="2"',
      headers: { 'List-Unsubscribe': '<https://x.example/a?b=1&c="2">', 'X-Many': 'one two' },
    });
  });

  it('seals the values to their mail: another site or batch, or another key, does not open them', () => {
    const key = deriveKey(randomBytes(32), 'k');
    const copy = {
      siteId: 1,
      batchId: 'b1',
      subject: 'x',
      html: mailSecret('code'),
      text: mailSecret('code'),
      extraHeaders: null,
      sealedSecrets: sealSecrets(key, { code: '123456' }, secretsContext(1, 'b1')),
    };
    expect(copy.sealedSecrets).not.toContain('123456');
    expect(withSecrets(copy, key)).toEqual({ ...copy, html: '123456', text: '123456' });
    expect(withSecrets({ ...copy, batchId: 'b2' }, key)).toBeNull();
    expect(withSecrets({ ...copy, siteId: 2 }, key)).toBeNull();
    expect(withSecrets(copy, deriveKey(randomBytes(32), 'k'))).toBeNull();
    expect(withSecrets(copy, null)).toBeNull();
    expect(withSecrets({ ...copy, sealedSecrets: null }, null)).toEqual({ ...copy, sealedSecrets: null });
  });

  it('takes secrets a caller gives beside the declared ones, never one name twice', () => {
    const campaign = type('newsletter.campaign');
    const { data, secrets } = redactData(
      campaign,
      { subject: 'S', contentHtml: `<a href="${mailSecret('preferencesUrl')}">p</a>`, unsubscribeUrl: 'https://u' },
      { preferencesUrl: 'https://p', oneClick: 'https://o' },
    );
    expect(data?.unsubscribeUrl).toBe('[redacted:unsubscribeUrl]');
    expect(secrets).toEqual({ preferencesUrl: 'https://p', oneClick: 'https://o', unsubscribeUrl: 'https://u' });
    expect(() => redactData(campaign, { unsubscribeUrl: 'https://u' }, { UnsubscribeURL: 'x' })).toThrow(/twice/);
    expect(() => redactData(null, undefined, { 'bad name': 'x' })).toThrow(/not a name/);
    expect(redactData(type('custom'), { subject: 's', body: 'b' }, undefined).secrets).toBeNull();
  });

  it('refuses a secret mark on anything but a top-level string', () => {
    const bad = (schema: Record<string, unknown>): EmailTemplateType => ({
      ...type('custom'),
      type: 'x.y',
      variables: { type: 'object', properties: { n: schema } },
    });
    expect(() => checkSecretMarks(bad({ type: 'integer', secret: true }))).toThrow(/must be a string/);
    expect(() => checkSecretMarks(bad({ type: 'string', secret: 'yes' }))).toThrow(/must be a string/);
    expect(() => checkSecretMarks(bad({ type: 'string', secret: true }))).not.toThrow();
  });

  it('finds a template that changes a secret before output; appending to it or testing it is fine', async () => {
    const otp = type('users.otp');
    const sample = { ...otp.sample, site };
    const render = renderer.render.bind(renderer);
    const faults = (html: string, subject = 'Code') => secretFaults(render, { subject, html, text: null }, otp, sample);
    expect(await faults('<p>{{ code }}</p>{% if code %}!{% endif %}', 'Code {{ code | append: "." }}')).toEqual([]);
    expect(await faults('<p>{{ code | slice: 0, 3 }}</p>')).toEqual([
      expect.objectContaining({ path: 'html', message: expect.stringContaining('`code`, a secret variable') }),
    ]);
    expect(await faults('<p>x</p>', 'Code {{ code | size }}')).toEqual([expect.objectContaining({ path: 'subject' })]);
    // A link put in another link's query is URL-encoded: its placeholder is filled in encoded.
    const confirmation = type('newsletter.confirmation');
    const share = '<a href="https://share.example/?u={{ confirmUrl | url_encode }}">Share</a>';
    expect(
      await secretFaults(render, { subject: 'S', html: share, text: null }, confirmation, {
        ...confirmation.sample,
        confirmUrl: 'https://demo.example/confirm/c.1.a b&c',
        site,
      }),
    ).toEqual([]);
    // Every built-in type's default template outputs its secrets as they are.
    for (const t of BUILTIN_TEMPLATE_TYPES)
      expect(await secretFaults(render, defaultParts(t), t, { ...t.sample, site })).toEqual([]);
  });
});
