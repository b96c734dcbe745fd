import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactMessages } from '../../../src/db/schema.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { type LocalMailServer, startMailServer } from '../../support/mail-server.ts';

const OWNERS = ['boss@arbiter.test', 'ops@arbiter.test'];

let mail: LocalMailServer;
let h: Harness;
let owner: string;

beforeAll(async () => {
  mail = await startMailServer();
  h = await startHarness({
    ARBITER_PLATFORM_OWNER_EMAILS: OWNERS.join(','),
    ARBITER_SMTP_URL: mail.url,
    ARBITER_SMTP_FROM: 'Arbiter <arbiter@arbiter.test>',
  });
  owner = await h.token({ sub: 'boss', email: 'boss@arbiter.test', org_id: 'platform' });
});
afterAll(async () => {
  await h.close();
  await mail.close();
});

const message = (overrides: Record<string, unknown> = {}) => ({
  name: 'Ada Lovelace',
  email: 'ada@engines.test',
  company: 'Analytical Engines',
  message: 'We run 40 prompts in production and would like to test them.',
  kind: 'design_partner',
  ...overrides,
});

function contact(payload: unknown, from = '10.0.0.1', headers: Record<string, string> = {}) {
  return h.app.inject({
    method: 'POST',
    url: '/v1/contact',
    payload: payload as object,
    remoteAddress: from,
    headers,
  });
}

async function inbox(query = '') {
  const res = await h.call(owner, { method: 'GET', url: `/v1/admin/inbox${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { items: Array<Record<string, unknown>>; next_cursor: string | null };
}

async function storedFrom(address: string) {
  return h.ctx.db.select().from(contactMessages).where(eq(contactMessages.clientIp, address));
}

describe('POST /v1/contact', () => {
  it('stores the message for the inbox and mails it to every platform owner', async () => {
    const res = await contact(message(), '10.0.1.1');
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ status: 'received' });
    await h.ctx.contactNotifier.idle();

    expect(mail.received).toHaveLength(1);
    const [{ envelopeTo, mail: sent }] = mail.received as [(typeof mail.received)[number]];
    expect(envelopeTo.sort()).toEqual(OWNERS);
    expect(sent.from?.value[0]?.address).toBe('arbiter@arbiter.test');
    expect(sent.replyTo?.value[0]?.address).toBe('ada@engines.test');
    expect(sent.subject).toBe(
      '[Arbiter contact] Design partner: Ada Lovelace (Analytical Engines)',
    );
    expect(sent.text).toContain('Email: ada@engines.test');
    expect(sent.text).toContain('We run 40 prompts in production and would like to test them.');

    const [item] = (await inbox()).items;
    expect(item).toMatchObject({
      source: 'contact',
      name: 'Ada Lovelace',
      email: 'ada@engines.test',
      company: 'Analytical Engines',
      kind: 'design_partner',
      message: 'We run 40 prompts in production and would like to test them.',
      mail_status: 'sent',
    });
  });

  it('answers a filled honeypot as a success and keeps nothing', async () => {
    const before = mail.received.length;
    for (const payload of [
      message({ website: 'http://spam.test' }),
      message({ website: 'x\u0000' }),
    ]) {
      const res = await contact(payload, '10.0.2.1');
      expect(res.statusCode).toBe(202);
      expect(res.json()).toEqual({ status: 'received' });
    }
    // An ill-formed message gets its 400 whatever the honeypot says: the schema holds for all.
    expect((await contact({ website: 'x', kind: 9 }, '10.0.2.1')).statusCode).toBe(400);
    await h.ctx.contactNotifier.idle();
    expect(await storedFrom('10.0.2.1')).toEqual([]);
    expect(mail.received.length).toBe(before);
    // An empty honeypot is a person's message.
    expect((await contact(message({ website: '' }), '10.0.2.1')).statusCode).toBe(202);
    expect(await storedFrom('10.0.2.1')).toHaveLength(1);
  });

  it('refuses an invalid message with a problem that names each field, and keeps nothing', async () => {
    const res = await contact(
      { name: ' ', email: 'not-an-address', message: 'hi', kind: 'partnership' },
      '10.0.3.1',
    );
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const problem = res.json();
    expect(problem.type).toBe('/problems/validation-error');
    const pointers = (problem.errors as Array<{ pointer: string }>).map((e) => e.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['#/name', '#/email', '#/kind']));
    expect(await storedFrom('10.0.3.1')).toEqual([]);
  });

  it('takes five messages an hour from one address; the sixth is a 429 with Retry-After', async () => {
    const start = Date.now();
    for (let i = 0; i < 5; i++)
      expect((await contact(message({ message: `note ${i}` }), '10.0.4.1')).statusCode).toBe(202);
    const sixth = await contact(message(), '10.0.4.1');
    const elapsed = Math.ceil((Date.now() - start) / 1000);
    expect(sixth.statusCode).toBe(429);
    expect(sixth.json()).toMatchObject({
      type: '/problems/contact-limit',
      status: 429,
      title: 'Too many messages',
    });
    const retryAfter = Number(sixth.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    // The cap lifts an hour after the first of the five, which was sent after `start`.
    expect(retryAfter).toBeGreaterThanOrEqual(3600 - elapsed);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(await storedFrom('10.0.4.1')).toHaveLength(5);
    // Another address is not held back.
    expect((await contact(message(), '10.0.4.2')).statusCode).toBe(202);
  });

  it('counts simultaneous messages exactly against the cap', async () => {
    const answers = await Promise.all(
      Array.from({ length: 9 }, (_, i) => contact(message({ message: `burst ${i}` }), '10.0.5.1')),
    );
    const statuses = answers.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429, 429, 429, 429]);
    expect(await storedFrom('10.0.5.1')).toHaveLength(5);
  });

  it('ignores X-Forwarded-For unless ARBITER_TRUST_PROXY trusts the proxy', async () => {
    for (let i = 0; i < 6; i++) {
      const res = await contact(message(), '10.0.6.1', { 'x-forwarded-for': `198.51.100.${i}` });
      expect(res.statusCode).toBe(i < 5 ? 202 : 429);
    }
  });

  it('keeps the message when the mail server refuses it, marked as failed', async () => {
    mail.refuseWith = 'mailbox unavailable';
    try {
      const res = await contact(message({ message: 'mail will fail' }), '10.0.7.1');
      expect(res.statusCode).toBe(202);
      await h.ctx.contactNotifier.idle();
    } finally {
      mail.refuseWith = null;
    }
    const [stored] = await storedFrom('10.0.7.1');
    expect(stored).toMatchObject({ message: 'mail will fail', mailStatus: 'failed' });
    expect(stored?.mailError).toContain('mailbox unavailable');
    const item = (await inbox()).items.find((i) => i.id === stored?.id);
    expect(item).toMatchObject({ source: 'contact', mail_status: 'failed' });
  });
});

describe('GET /v1/admin/health with SMTP configured', () => {
  it('says mail is configured', async () => {
    const res = await h.call(owner, { method: 'GET', url: '/v1/admin/health' });
    expect(res.json().providers).toMatchObject({ mail: true, judge: false });
  });
});

describe('behind a trusted proxy', () => {
  let proxied: Harness;
  beforeAll(async () => {
    proxied = await startHarness({ ARBITER_TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => proxied.close());

  it('counts each forwarded client on its own, and keeps the forwarded address', async () => {
    const send = (client: string) =>
      proxied.app.inject({
        method: 'POST',
        url: '/v1/contact',
        payload: message(),
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': client },
      });
    for (let i = 0; i < 6; i++) expect((await send(`203.0.113.${i}`)).statusCode).toBe(202);
    for (let i = 0; i < 5; i++) expect((await send('203.0.113.99')).statusCode).toBe(202);
    expect((await send('203.0.113.99')).statusCode).toBe(429);
    const stored = await proxied.ctx.db.select().from(contactMessages);
    expect(new Set(stored.map((s) => s.clientIp)).size).toBe(7);
    expect(stored.every((s) => s.mailStatus === 'not_configured')).toBe(true);
  });
});
