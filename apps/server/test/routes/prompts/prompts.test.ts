import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, orgs, promptVersions } from '../../../src/db/schema.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * Prompts over HTTP: created, versioned (immutably), labelled (audited, minting a config
 * version); another org's prompt never readable; a bad body a problem that changes nothing.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let other: Awaited<ReturnType<Harness['org']>>;
let member: string;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('acme_prompts');
  other = await h.org('other_prompts');
  member = await h.token({ sub: 'member-p', org_id: 'acme_prompts', org_role: 'member' });
});
afterAll(() => h.close());

const post = (token: string, url: string, payload: object) =>
  h.call(token, { method: 'POST', url, payload });
const get = (token: string, url: string) => h.call(token, { method: 'GET', url });
const label = (token: string, name: string, l: string, version: number) =>
  h.call(token, { method: 'PUT', url: `/v1/prompts/${name}/labels/${l}`, payload: { version } });

async function prompt(name: string, texts: string[]) {
  expect((await post(acme.admin, '/v1/prompts', { name })).statusCode).toBe(201);
  for (const text of texts) {
    const res = await post(acme.admin, `/v1/prompts/${name}/versions`, {
      text,
      variables: text.includes('{{customer}}') ? ['customer'] : [],
    });
    expect(res.statusCode, res.body).toBe(201);
  }
}

const configVersion = async () =>
  (await h.ctx.db.select().from(orgs).where(eq(orgs.id, acme.orgId)))[0]!.configVersion;

describe('prompts', () => {
  it('numbers versions 1, 2, … and never changes one', async () => {
    const created = await post(member, '/v1/prompts', { name: 'greeting', description: 'hi' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers.location).toBe('/v1/prompts/greeting');
    expect(created.json()).toMatchObject({
      name: 'greeting',
      latest_version: 0,
      labels: {},
      versions: [],
    });
    const v1 = await post(member, '/v1/prompts/greeting/versions', {
      text: 'Hello {{ customer }}.',
      variables: ['customer'],
      model_settings: { model: 'gpt-4o-mini', temperature: 0.2 },
    });
    expect(v1.statusCode, v1.body).toBe(201);
    expect(v1.json()).toMatchObject({
      version: 1,
      text: 'Hello {{ customer }}.',
      variables: ['customer'],
    });
    const v2 = await post(member, '/v1/prompts/greeting/versions', {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: '{{question}}' },
      ],
      variables: ['question'],
    });
    expect(v2.json()).toMatchObject({
      version: 2,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: '{{question}}' },
      ],
    });
    const read = (await get(other.admin, '/v1/prompts/greeting')).statusCode;
    expect(read).toBe(404);
    const got = (await get(member, '/v1/prompts/greeting')).json();
    expect(got.latest_version).toBe(2);
    expect(got.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    // Version 1 is what it was written as: adding version 2 did not touch it.
    expect(got.versions[1]).toEqual({ ...v1.json() });
    expect(got.versions[1].model_settings).toEqual({ model: 'gpt-4o-mini', temperature: 0.2 });
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      const res = await h.call(acme.admin, {
        method,
        url: '/v1/prompts/greeting/versions/1',
        payload: { text: 'x' },
      });
      expect(res.statusCode).toBe(404);
    }
    const trail = await h.ctx.db.select().from(auditLog).where(eq(auditLog.targetId, got.id));
    expect(trail.map((e) => e.action).sort()).toEqual([
      'prompt.created',
      'prompt.version_created',
      'prompt.version_created',
    ]);
  });

  it('moves a label, audited, each move minting a config version; a member may not', async () => {
    await prompt('reply', ['one', 'two']);
    const before = await configVersion();
    const moved = await label(acme.admin, 'reply', 'production', 1);
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().labels).toEqual({ production: 1 });
    expect(await configVersion()).toBe(before + 1);
    expect((await label(acme.admin, 'reply', 'production', 2)).json().labels).toEqual({
      production: 2,
    });
    expect(await configVersion()).toBe(before + 2);
    // Pointing it where it points is no move: no entry, no new config version.
    expect((await label(acme.admin, 'reply', 'production', 2)).statusCode).toBe(200);
    expect(await configVersion()).toBe(before + 2);
    const refused = await label(member, 'reply', 'production', 1);
    expect(refused.statusCode).toBe(403);
    const id = moved.json().id;
    const moves = (await get(acme.admin, `/v1/audit?target_id=${id}`)).json() as Array<{
      action: string;
      details: unknown;
    }>;
    expect(moves.filter((e) => e.action === 'prompt.label_moved').map((e) => e.details)).toEqual([
      { name: 'reply', label: 'production', from: 1, to: 2 },
      { name: 'reply', label: 'production', from: null, to: 1 },
    ]);
    expect((await get(acme.admin, '/v1/prompts')).json()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'reply', labels: { production: 2 } }),
      ]),
    );
  });

  it('never shows another org its prompts, nor lets it move their labels', async () => {
    await prompt('secret-sauce', ['ours']);
    expect((await get(other.admin, '/v1/prompts/secret-sauce')).json()).toMatchObject({
      type: '/problems/prompt-not-found',
      status: 404,
    });
    expect((await get(other.admin, '/v1/prompts')).json()).toEqual([]);
    expect((await label(other.admin, 'secret-sauce', 'production', 1)).statusCode).toBe(404);
    expect(
      (await post(other.admin, '/v1/prompts/secret-sauce/versions', { text: 'x' })).statusCode,
    ).toBe(404);
    expect((await get(acme.admin, '/v1/prompts/secret-sauce')).json().labels).toEqual({});
  });

  it('refuses bad input with a problem and changes nothing', async () => {
    await prompt('strict', ['first']);
    const before = await configVersion();
    const cases: Array<[string, object, string]> = [
      [
        '/v1/prompts/strict/versions',
        { text: 'a', messages: [{ role: 'user', content: 'b' }] },
        '#/text',
      ],
      ['/v1/prompts/strict/versions', {}, '#/text'],
      ['/v1/prompts/strict/versions', { text: 'Hi {{name}}' }, '#/text'],
      [
        '/v1/prompts/strict/versions',
        { messages: [{ role: 'user', content: '{{x}}' }], variables: ['y'] },
        '#/messages/0/content',
      ],
      ['/v1/prompts/strict/versions', { text: 'a', variables: ['bad name'] }, '#/variables/0'],
      ['/v1/prompts', { name: 'has space' }, '#/name'],
      ['/v1/prompts', { name: 'strict' }, '#/name'],
    ];
    for (const [url, payload, pointer] of cases) {
      const res = await post(acme.admin, url, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    }
    const missing = await label(acme.admin, 'strict', 'production', 2);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors).toEqual([
      { pointer: '#/version', detail: 'prompt "strict" has versions 1 to 1' },
    ]);
    expect((await label(acme.admin, 'strict', 'Production', 1)).statusCode).toBe(400);
    const got = (await get(acme.admin, '/v1/prompts/strict')).json();
    expect(got.latest_version).toBe(1);
    expect(got.labels).toEqual({});
    const rows = await h.ctx.db
      .select()
      .from(promptVersions)
      .where(eq(promptVersions.promptId, got.id));
    expect(rows).toHaveLength(1);
    expect(await configVersion()).toBe(before);
  });
});
