import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, experiments, orgs } from '../src/db/schema.ts';
import { experimentConfig, type Harness, startHarness } from './support/harness.ts';

let h: Harness;
let admin: string;

beforeAll(async () => {
  h = await startHarness();
  admin = await h.token({
    sub: 'ada',
    name: 'Ada Lovelace',
    email: 'ada@acme.test',
    org_id: 'acme',
    org_role: 'admin',
  });
});
afterAll(() => h.close());

function create(name: string) {
  return h.call(admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig({ name }),
  });
}

async function orgCounts() {
  const [org] = await h.ctx.db.select().from(orgs).where(eq(orgs.externalId, 'acme'));
  const [audit] = await h.ctx.db
    .select({ n: count() })
    .from(auditLog)
    .where(eq(auditLog.orgId, org!.id));
  return { configVersion: org!.configVersion, audit: audit!.n };
}

describe('experiment names are unique in an org', () => {
  it('gives one name to exactly one of several creates sent at once', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => create('raced')));
    const codes = answers.map((res) => res.statusCode).sort();
    expect(codes).toEqual([201, 400, 400, 400, 400, 400]);
    for (const res of answers.filter((r) => r.statusCode === 400)) {
      expect(res.json().type).toBe('/problems/experiment-name-taken');
    }
    const rows = await h.ctx.db.select().from(experiments).where(eq(experiments.name, 'raced'));
    expect(rows).toHaveLength(1);
  });

  it('changes nothing when the name is taken: no version bump, no audit record', async () => {
    expect((await create('kept')).statusCode).toBe(201);
    const before = await orgCounts();
    const again = await create('kept');
    expect(again.json().detail).toBe('An experiment named "kept" already exists in your org');
    expect(await orgCounts()).toEqual(before);
  });
});
