import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredEvents } from '../../../src/analysis/retention/retention.ts';
import { rows } from '../../../src/db/connect.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  org = await h.org('claims-retention');
});
afterAll(() => h.close());

describe('retention of the Kafka log’s claimed ids', () => {
  it("purges claims older than the plan's retention and keeps the recent ones", async () => {
    await rows(
      h.ctx.db,
      sql`insert into event_claims (org_id, event_id, digest, claimed_at) values
        (${org.orgId}::uuid, 'old', 'd', now() - interval '8 days'),
        (${org.orgId}::uuid, 'recent', 'd', now() - interval '6 days')`,
    );
    await purgeExpiredEvents(h.ctx, new Date());
    const left = await rows<{ event_id: string }>(
      h.ctx.db,
      sql`select event_id from event_claims where org_id = ${org.orgId}::uuid order by event_id`,
    );
    expect(left.map((r) => r.event_id)).toEqual(['recent']);
  });
});
