import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgStateCache } from '../../src/domain/org-state-cache.ts';
import { experimentConfig, type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('the in-memory org state behind assign and config', () => {
  it('follows a change made by another process within its revalidation interval', async () => {
    const org = await h.org('cached');
    const exp = (
      await h.call(org.admin, {
        method: 'POST',
        url: '/v1/experiments',
        payload: experimentConfig({ name: 'cached-exp' }),
      })
    ).json();
    // A second cache over the same database stands for another server process: this process's
    // PUT below does not invalidate it.
    let now = new Date('2026-11-21T10:00:00Z');
    const other = new OrgStateCache(h.ctx.db, { now: () => now }, 1000);
    const before = await other.get(org.orgId);
    expect(before.lookup.get('cached-exp')?.version).toBe(1);

    const put = await h.call(org.admin, {
      method: 'PUT',
      url: `/v1/experiments/${exp.id}`,
      payload: { name: 'renamed-exp' },
    });
    expect(put.statusCode).toBe(200);

    now = new Date(now.getTime() + 999);
    const stale = await other.get(org.orgId);
    expect(stale.configVersion).toBe(before.configVersion);
    expect(stale.lookup.has('cached-exp')).toBe(true);

    now = new Date(now.getTime() + 2);
    const fresh = await other.get(org.orgId);
    expect(fresh.configVersion).toBe(before.configVersion + 1);
    expect(fresh.lookup.get('renamed-exp')?.version).toBe(2);
    expect(fresh.lookup.has('cached-exp')).toBe(false);
    expect(fresh.etag).toBe(`"${fresh.configVersion}"`);
  });

  it('serves this process’s own changes at once', async () => {
    const org = await h.org('local');
    const exp = (
      await h.call(org.admin, {
        method: 'POST',
        url: '/v1/experiments',
        payload: experimentConfig({ name: 'local-exp' }),
      })
    ).json();
    const assign = () =>
      h.ingest(org.secret, {
        method: 'POST',
        url: '/v1/assign',
        payload: { experiment_id: 'local-exp', user_id: 'u' },
      });
    const first = (await assign()).json();
    await h.call(org.admin, {
      method: 'PUT',
      url: `/v1/experiments/${exp.id}`,
      payload: { description: 'v2' },
    });
    expect((await assign()).json().config_version).toBe(first.config_version + 1);
  });
});
