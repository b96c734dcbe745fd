import { sql } from 'drizzle-orm';
import { rows } from '../../../../apps/server/src/db/connect.ts';
import type { Harness } from '../../../../apps/server/test/support/harness.ts';

/**
 * An org of its own on the free plan with `used` events metered this month already, an
 * experiment, and its exposures: for a test of the allowance's cut (the harness must enforce
 * limits, ARBITER_ENFORCE_LIMITS=true).
 */
export async function cappedOrg(h: Harness, name: string, used: number) {
  const capped = await h.org(name);
  const experimentId = await h.experiment(capped.admin, { name: `${name}-exp` });
  const month = new Date().toISOString().slice(0, 7);
  await rows(
    h.ctx.db,
    sql`insert into usage_counters (org_id, month, shard, events)
      values (${capped.orgId}::uuid, ${month}, 0, ${used})`,
  );
  const exposure = (id: string) => ({
    event_id: id,
    type: 'exposure',
    experiment_id: experimentId,
    user_id: 'u',
    timestamp: new Date().toISOString(),
  });
  return { ...capped, exposure };
}
