import { and, lte } from 'drizzle-orm';
import type { Context } from '../context.ts';
import { experiments } from '../db/schema.ts';
import { analyzeExperiment } from './pipeline.ts';
import { purgeExpiredEvents } from './retention.ts';
import { withLease } from './run-lease.ts';

const DAY_MS = 86_400_000;
/** Long enough for the largest nightly run; a crashed holder frees the lease after it. */
const LEASE_MS = 2 * 3600 * 1000;

export interface NightlySummary {
  day: string;
  ran: boolean;
  experiments: Array<{ experiment_id: string; status: string }>;
  purged_events: number;
}

/** The UTC day before `now`: what the nightly run at 00:15 UTC analyses. */
export function previousUtcDay(now: Date): string {
  return new Date(now.getTime() - DAY_MS).toISOString().slice(0, 10);
}

export type JudgeStep = (ctx: Context, now: Date) => Promise<void>;

/**
 * The nightly pipeline for one UTC day, every experiment created by then: judge scoring
 * (when configured), then per experiment SRM → tests → FDR, then retention. One runner at a
 * time across processes; re-running a day replaces its results.
 */
export async function runNightly(
  ctx: Context,
  day: string,
  judge: JudgeStep | null = null,
): Promise<NightlySummary> {
  const now = ctx.clock.now();
  const windowEnd = new Date(Date.parse(`${day}T00:00:00.000Z`) + DAY_MS);
  const outcome = await withLease(ctx.db, 'nightly', LEASE_MS, now, async () => {
    if (judge) await judge(ctx, now);
    const list = await ctx.db
      .select({ id: experiments.id })
      .from(experiments)
      .where(and(lte(experiments.createdAt, windowEnd)))
      .orderBy(experiments.createdAt);
    const done: NightlySummary['experiments'] = [];
    for (const { id } of list) {
      const record = await analyzeExperiment(ctx, {
        experimentId: id,
        kind: 'nightly',
        label: day,
        windowEnd,
      });
      done.push({ experiment_id: id, status: record.status });
    }
    const purged = await purgeExpiredEvents(ctx, now);
    return { experiments: done, purged };
  });
  return outcome === null
    ? { day, ran: false, experiments: [], purged_events: 0 }
    : { day, ran: true, experiments: outcome.experiments, purged_events: outcome.purged };
}
