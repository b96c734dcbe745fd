import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, experimentVersions } from '../../../src/db/schema.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { type SecondProcess, secondProcess } from '../../support/second-process.ts';

/**
 * Two API processes on one PostgreSQL tick the same ramps at the same instant, many times:
 * each step advances once (one version, one audit entry), whichever process claims it.
 */
let h: Harness;
let other: SecondProcess;
let acme: Awaited<ReturnType<Harness['org']>>;
let instant = Date.parse('2026-11-02T09:00:00Z');
const clock = { now: () => new Date(instant) };
const RAMPS = 10;

beforeAll(async () => {
  h = await startHarness({}, { clock });
  other = await secondProcess(h, { clock });
  acme = await h.org('acme_ramp_two');
  for (let i = 0; i < RAMPS; i++) {
    await h.experiment(acme.admin, {
      name: `two-${i}`,
      rollout: {
        steps: [
          { coverage: 0.1, hold: 'PT1H' },
          { coverage: 0.5, hold: 'PT1H' },
          { coverage: 1, hold: 'PT1H' },
        ],
        on_violation: 'pause',
      },
    });
  }
});
afterAll(async () => {
  await other.close();
  await h.close();
});

describe('ramps ticked by two processes at once', () => {
  it('advance every step once', async () => {
    for (const _ of [1, 2]) {
      instant += 60 * 60_000;
      await Promise.all(
        Array.from({ length: 4 }, (_x, i) => (i % 2 === 0 ? h.ctx : other.ctx).rollouts.tick()),
      );
    }
    const advanced = await h.ctx.db
      .select({ id: auditLog.targetId })
      .from(auditLog)
      .where(and(eq(auditLog.orgId, acme.orgId), eq(auditLog.action, 'rollout.advanced')));
    expect(advanced).toHaveLength(2 * RAMPS);
    for (let i = 0; i < RAMPS; i++) {
      const ramp = (
        await h.call(acme.admin, { method: 'GET', url: `/v1/experiments/two-${i}/rollout` })
      ).json();
      expect(ramp).toMatchObject({ step: 3, coverage: 1 });
      const versions = await h.ctx.db
        .select({ v: experimentVersions.version })
        .from(experimentVersions)
        .where(eq(experimentVersions.experimentId, ramp.experiment_id));
      // Version 1 at 0.1 (created running), then one per advance.
      expect(versions.map((v) => v.v).sort()).toEqual([1, 2, 3]);
    }
  });
});
