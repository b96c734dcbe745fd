import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
let admin: string;

// Small bounds, so a test config can pass them: 8 KiB per config, 20 KiB per org.
beforeAll(async () => {
  h = await startHarness({
    ARBITER_MAX_CONFIG_BYTES: String(8 * 1024),
    ARBITER_MAX_ORG_CONFIG_BYTES: String(20 * 1024),
  });
  ({ admin } = await h.org('config-size-org'));
});
afterAll(() => h.close());

const create = (name: string, descriptionBytes: number) =>
  h.call(admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: {
      ...experimentOf(name),
      variants: [{ key: 'control', prompt: 'd'.repeat(descriptionBytes) }],
    },
  });
const experimentOf = (name: string) => ({
  name,
  salt: `${name}-salt`,
  bucket_count: 100,
  allocation: [
    { variant: 'control', weight: 50 },
    { variant: 'treatment', weight: 50 },
  ],
  metrics: [],
});

describe('config size bounds', () => {
  it('refuses a config over ARBITER_MAX_CONFIG_BYTES with 413, and stores nothing', async () => {
    const res = await create('too-big', 9 * 1024);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({
      type: '/problems/config-too-large',
      limit_bytes: 8192,
    });
    const list = await h.call(admin, { method: 'GET', url: '/v1/experiments' });
    expect(list.json().map((e: { name: string }) => e.name)).not.toContain('too-big');
  });

  it('refuses a PUT whose merged config is too large, keeping the version', async () => {
    expect((await create('grows', 100)).statusCode).toBe(201);
    const res = await h.call(admin, {
      method: 'PUT',
      url: '/v1/experiments/grows',
      payload: { variants: [{ key: 'control', prompt: 'g'.repeat(9 * 1024) }] },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().type).toBe('/problems/config-too-large');
    const now = await h.call(admin, { method: 'GET', url: '/v1/experiments/grows' });
    expect(now.json().version).toBe(1);
  });

  it("refuses a create that takes the org's total past ARBITER_MAX_ORG_CONFIG_BYTES", async () => {
    expect((await create('fill-1', 7 * 1024)).statusCode).toBe(201);
    expect((await create('fill-2', 7 * 1024)).statusCode).toBe(201);
    const res = await create('fill-3', 7 * 1024);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({
      type: '/problems/org-config-too-large',
      limit_bytes: 20 * 1024,
    });
  });
});
