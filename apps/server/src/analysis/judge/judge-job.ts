import type { Context } from '../../context.ts';
import { isShardNotAnswering } from '../../db/shards/shard-not-answering.ts';
import { usageMonth } from '../../domain/billing/usage-month.ts';
import { type ModelTextReader, modelTextReader } from '../../domain/events-export/model-text.ts';
import type { Judge, JudgeOutcome } from '../../kernel/ports.ts';
import { utcDay } from '../../kernel/utc-day.ts';
import { failureReason } from '../run/failure-reason.ts';
import { type OrgMonth, remainingAllowance, type ScoreRow, storeScores } from './judge-metering.ts';
import { type JudgeCandidate, sampleUnscored } from './judge-sample.ts';
import { type JudgeMetric, type JudgeTarget, judgeTargets } from './judge-targets.ts';

export interface JudgeJobCounts {
  experimentId: string;
  /** Scores stored and metered in this run. */
  scored: number;
  /** Judge calls that gave no score (not metered; the event is tried again next run). */
  failed: number;
  /** Sampled model calls left unscored because the org's monthly allowance ran out. */
  skippedForAllowance: number;
  /** The first failure's reason, so a misconfigured endpoint is visible in the run's result. */
  firstFailure: string | null;
}

/** Judge calls in flight at once; scores are committed after each such batch. */
export const JUDGE_CONCURRENCY = 4;

type JobContext = Pick<Context, 'db' | 'shards' | 'config' | 'metrics' | 'modelText'>;

function scoreRow(target: JudgeTarget, metric: string, e: JudgeCandidate, score: number): ScoreRow {
  return {
    orgId: target.orgId,
    experimentId: target.experimentId,
    metric,
    eventId: e.eventId,
    userId: e.userId,
    variant: e.variant,
    day: utcDay(e.occurredAt),
    score,
  };
}

/**
 * One candidate scored, its text read back first (from the store when the row refers to it).
 * Text the store cannot give back is a failed call: not metered, tried again next run.
 */
async function scoreCandidate(
  judge: Judge,
  readText: ModelTextReader,
  orgId: string,
  rubric: string,
  e: JudgeCandidate,
): Promise<JudgeOutcome> {
  let text: Awaited<ReturnType<ModelTextReader>>;
  try {
    text = await readText({ orgId, ...e });
  } catch (error) {
    return { ok: false, reason: `the model text could not be read: ${(error as Error).message}` };
  }
  if (text.prompt === null || text.response === null)
    return { ok: false, reason: 'the model text could not be read: the row has none' };
  return judge.score({ rubric, prompt: text.prompt, response: text.response });
}

async function judgeMetric(
  ctx: JobContext,
  judge: Judge,
  target: JudgeTarget,
  metric: JudgeMetric,
  org: OrgMonth,
  counts: JudgeJobCounts,
): Promise<void> {
  const sample = await sampleUnscored(
    ctx.shards,
    target,
    metric.name,
    ctx.config.judgeSamplePerRun,
  );
  const readText = modelTextReader(ctx.modelText);
  let room = await remainingAllowance(ctx.db, org);
  let next = 0;
  // Only calls that fit are made: a judge call costs money even when its score is dropped.
  while (next < sample.length && room > 0) {
    const batch = sample.slice(next, next + Math.min(JUDGE_CONCURRENCY, room));
    next += batch.length;
    const outcomes = await Promise.all(
      batch.map((e) => scoreCandidate(judge, readText, target.orgId, metric.rubric, e)),
    );
    const rows: ScoreRow[] = [];
    outcomes.forEach((outcome, k) => {
      ctx.metrics.countJudgeCall(outcome.ok ? 'succeeded' : 'failed');
      if (outcome.ok) rows.push(scoreRow(target, metric.name, batch[k]!, outcome.score));
      else {
        counts.failed += 1;
        counts.firstFailure ??= outcome.reason;
      }
    });
    const stored = await storeScores(ctx.db, ctx.shards, org, rows);
    counts.scored += stored.stored;
    if (stored.unstored !== null) {
      counts.failed += stored.unstored.count;
      counts.firstFailure ??= stored.unstored.reason;
    }
    counts.skippedForAllowance += stored.overAllowance;
    room = stored.remaining;
  }
  counts.skippedForAllowance += sample.length - next;
}

/**
 * Scores a deterministic sample of unscored model calls for every judge metric of the
 * current experiment versions, within each org's monthly judge allowance. Idempotent: an
 * event is scored at most once per metric (judge_scores' key), so re-runs only add.
 */
export async function runJudgeJob(
  ctx: JobContext,
  judge: Judge,
  options: { experimentId?: string; now: Date },
): Promise<JudgeJobCounts[]> {
  const month = usageMonth(options.now);
  const results: JudgeJobCounts[] = [];
  for (const target of await judgeTargets(ctx.db, options.now, options.experimentId)) {
    const counts: JudgeJobCounts = {
      experimentId: target.experimentId,
      scored: 0,
      failed: 0,
      skippedForAllowance: 0,
      firstFailure: null,
    };
    const org = { orgId: target.orgId, month, allowance: target.allowance };
    try {
      for (const metric of target.metrics)
        await judgeMetric(ctx, judge, target, metric, org, counts);
    } catch (error) {
      // A shard that does not answer the sample leaves this experiment unscored until the next
      // run; the other experiments, and the nightly analysis after the job, go on.
      if (!isShardNotAnswering(error)) throw error;
      counts.firstFailure ??= `${error.message}: ${failureReason(error.cause)}`;
    }
    results.push(counts);
  }
  return results;
}
