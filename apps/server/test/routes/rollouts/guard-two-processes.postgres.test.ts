import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rolloutEvaluations } from '../../../src/db/schema.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { type SecondProcess, secondProcess } from '../../support/second-process.ts';

/**
 * Two API processes on one PostgreSQL run the ramps' guard together, many times, the second a
 * second ahead of the first: each due evaluation is claimed by one of them and stored once (a
 * second claim would store a second evaluation a second apart).
 */
let h: Harness;
let other: SecondProcess;
let acme: Awaited<ReturnType<Harness['org']>>;
let instant = Date.parse('2026-11-02T09:00:00Z');
const RAMPS = 10;
const ROUNDS = 3;

beforeAll(async () => {
  h = await startHarness({}, { clock: { now: () => new Date(instant) } });
  other = await secondProcess(h, { clock: { now: () => new Date(instant + 1000) } });
  acme = await h.org('acme_guard_two');
  for (let i = 0; i < RAMPS; i++) {
    await h.experiment(acme.admin, {
      name: `guarded-${i}`,
      rollout: {
        steps: [
          { coverage: 0.1, hold: 'P1D' },
          { coverage: 1, hold: 'P1D' },
        ],
        on_violation: 'rollback',
        guardrails_every: 'PT5M',
      },
    });
  }
});
afterAll(async () => {
  await other.close();
  await h.close();
});

describe('the guard run by two processes at once', () => {
  it('stores each due evaluation once', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      instant += 5 * 60_000;
      await Promise.all(
        Array.from({ length: 4 }, (_x, i) => (i % 2 === 0 ? h.ctx : other.ctx).rollouts.tick()),
      );
    }
    for (let i = 0; i < RAMPS; i++) {
      const ramp = (
        await h.call(acme.admin, { method: 'GET', url: `/v1/experiments/guarded-${i}/rollout` })
      ).json();
      const stored = await h.ctx.db
        .select({ at: rolloutEvaluations.evaluatedAt })
        .from(rolloutEvaluations)
        .where(eq(rolloutEvaluations.experimentId, ramp.experiment_id));
      expect(stored).toHaveLength(ROUNDS);
      expect(ramp).toMatchObject({ state: 'running', guard: { state: 'ok' } });
    }
  });
});
