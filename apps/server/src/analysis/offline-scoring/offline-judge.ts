import { sql } from 'drizzle-orm';
import type { Context } from '../../context.ts';
import { type Database, rows } from '../../db/connect.ts';
import { offlineScores } from '../../db/schema.ts';
import { usageMonth } from '../../domain/billing/usage-month.ts';
import { pinnedItems } from '../../domain/offline-runs/complete.ts';
import type { Scorer } from '../../domain/offline-runs/run-schema.ts';
import { asText } from '../../domain/offline-runs/scorers.ts';
import { type Claim, renewScoring, stillHolding } from '../../domain/offline-runs/scoring-lease.ts';
import { effectivePlan } from '../../domain/plans/effective-plan.ts';
import { PLAN_LIMITS } from '../../domain/plans/plans.ts';
import type { Judge } from '../../kernel/ports.ts';
import { JUDGE_CONCURRENCY } from '../judge/judge-job.ts';
import { type OrgMonth, remainingAllowance, storeMetered } from '../judge/judge-metering.ts';

/** Outputs read from the database at a time. */
const PAGE = 100;
/** A judge call that gave no score is tried again once, in a second pass over what is left. */
const PASSES = 2;

export type JudgeRunOutcome =
  | { kind: 'done' }
  | { kind: 'failed'; reason: string }
  /** The lease passed and another holder took the run over: it finishes the run. */
  | { kind: 'lost' }
  /** The process is stopping: the run is given back for another holder. */
  | { kind: 'stopped' };

export type JudgeRunDeps = Pick<Context, 'db' | 'metrics'> & {
  judge: Judge | null;
  now: () => Date;
  stopping: () => boolean;
};

interface Target {
  item_id: string;
  variant: string;
  repeat: number;
  output: string;
}

/** The run's outputs that the scorer has not scored, after `after` in (variant, item, repeat). */
function unscored(db: Database, runId: string, scorer: string, after: Target | null) {
  const past =
    after === null
      ? sql``
      : sql`and (r.variant, r.item_id, r.repeat) > (${after.variant}, ${after.item_id}, ${after.repeat})`;
  return rows<Target>(
    db,
    sql`select r.item_id, r.variant, r.repeat, r.output::text as output
        from offline_results r
        where r.run_id = ${runId} and r.error is null and r.output is not null ${past}
          and not exists (select 1 from offline_scores s
            where s.run_id = r.run_id and s.scorer = ${scorer} and s.variant = r.variant
              and s.item_id = r.item_id and s.repeat = r.repeat)
        order by r.variant, r.item_id, r.repeat
        limit ${PAGE}`,
  );
}

async function unscoredCount(db: Database, runId: string, scorer: string): Promise<number> {
  const [row] = await rows<{ n: number | string }>(
    db,
    sql`select count(*) as n from offline_results r
        where r.run_id = ${runId} and r.error is null and r.output is not null
          and not exists (select 1 from offline_scores s
            where s.run_id = r.run_id and s.scorer = ${scorer} and s.variant = r.variant
              and s.item_id = r.item_id and s.repeat = r.repeat)`,
  );
  return Number(row?.n ?? 0);
}

const allowanceSpent = (org: OrgMonth, left: number) =>
  `The org's monthly judge allowance (${org.allowance} evaluations) ran out with ${left} outputs left to judge; the scores already given are kept and counted`;

type PinnedItem = Awaited<ReturnType<typeof pinnedItems>>[number];

/** One judge call's input: the item's input as the prompt, its expected output when it has one. */
function judgeInput(scorer: Scorer, item: PinnedItem | undefined, output: string) {
  const expected = item?.expected;
  return {
    rubric: scorer.rubric ?? '',
    prompt: asText(item?.input ?? ''),
    response: asText(JSON.parse(output)),
    ...(expected === null || expected === undefined ? {} : { expected: asText(expected) }),
  };
}

/** The judging of one claimed run; one instance per attempt. */
class RunJudging {
  private readonly firstFailure = new Map<string, string>();

  constructor(
    private readonly deps: JudgeRunDeps & { judge: Judge },
    private readonly claim: Claim,
    private readonly org: OrgMonth,
    private readonly items: Map<string, PinnedItem>,
  ) {}

  async run(scorers: Scorer[]): Promise<JudgeRunOutcome> {
    for (let pass = 0; pass < PASSES; pass++) {
      for (const scorer of scorers) {
        const outcome = await this.pass(scorer);
        if (outcome !== null) return outcome;
      }
    }
    for (const scorer of scorers) {
      const left = await unscoredCount(this.deps.db, this.claim.run.id, scorer.name);
      if (left > 0)
        return {
          kind: 'failed',
          reason: `The judge gave no score for ${left} outputs of scorer "${scorer.name}" after ${PASSES} attempts; the first failure: ${this.firstFailure.get(scorer.name) ?? 'unknown'}`,
        };
    }
    return { kind: 'done' };
  }

  /** One pass over what the scorer has left; null when it went through. */
  private async pass(scorer: Scorer): Promise<JudgeRunOutcome | null> {
    let after: Target | null = null;
    for (;;) {
      const page = await unscored(this.deps.db, this.claim.run.id, scorer.name, after);
      if (page.length === 0) return null;
      after = page[page.length - 1]!;
      for (let i = 0; i < page.length; i += JUDGE_CONCURRENCY) {
        if (this.deps.stopping()) return { kind: 'stopped' };
        const room = await remainingAllowance(this.deps.db, this.org);
        if (room <= 0) return this.spent(scorer);
        const outcome = await this.batch(
          scorer,
          page.slice(i, i + Math.min(JUDGE_CONCURRENCY, room)),
        );
        if (outcome !== null) return outcome;
      }
    }
  }

  private async spent(scorer: Scorer): Promise<JudgeRunOutcome> {
    const left = await unscoredCount(this.deps.db, this.claim.run.id, scorer.name);
    return { kind: 'failed', reason: allowanceSpent(this.org, left) };
  }

  /** Judges a batch at once, then stores and meters its scores and renews the lease. */
  private async batch(scorer: Scorer, batch: Target[]): Promise<JudgeRunOutcome | null> {
    const { db, judge, metrics } = this.deps;
    const { run, holder } = this.claim;
    const outcomes = await Promise.all(
      batch.map((t) => judge.score(judgeInput(scorer, this.items.get(t.item_id), t.output))),
    );
    const scored: Array<typeof offlineScores.$inferInsert> = [];
    outcomes.forEach((outcome, k) => {
      metrics.countJudgeCall(outcome.ok ? 'succeeded' : 'failed');
      const t = batch[k]!;
      if (outcome.ok)
        scored.push({
          runId: run.id,
          scorer: scorer.name,
          variant: t.variant,
          itemId: t.item_id,
          repeat: t.repeat,
          value: outcome.score,
        });
      else if (!this.firstFailure.has(scorer.name))
        this.firstFailure.set(scorer.name, outcome.reason);
    });
    let held = true;
    const stored = await storeMetered(db, this.org, scored, async (tx, fits) => {
      held = await stillHolding(tx, run.id, holder);
      if (!held) return 0;
      const inserted = await tx
        .insert(offlineScores)
        .values(fits)
        .onConflictDoNothing()
        .returning({ itemId: offlineScores.itemId });
      return inserted.length;
    });
    if (!held || !(await renewScoring(db, run.id, holder, this.deps.now())))
      return { kind: 'lost' };
    return stored.overAllowance > 0 ? this.spent(scorer) : null;
  }
}

/**
 * Scores every output of the run with each judge scorer, in batches of JUDGE_CONCURRENCY
 * calls, each batch stored and metered in one transaction within the org's monthly judge
 * allowance, and the lease renewed after it. Resumable: an output is scored at most once per
 * scorer (offline_scores' key), so a holder taking over continues where the last one stopped.
 */
export async function judgeRun(
  deps: JudgeRunDeps,
  claim: Claim,
  scorers: Scorer[],
): Promise<JudgeRunOutcome> {
  const { db, judge } = deps;
  const { run } = claim;
  if (judge === null)
    return {
      kind: 'failed',
      reason: 'No judge endpoint is configured on this server (ARBITER_JUDGE_BASE_URL)',
    };
  const now = deps.now();
  const { plan } = await effectivePlan(db, run.orgId, now);
  const allowance = PLAN_LIMITS[plan].monthly_judge_allowance;
  if (allowance <= 0)
    return {
      kind: 'failed',
      reason: `Judge scorers need the pro plan or higher; the org is on ${plan}`,
    };
  const org: OrgMonth = { orgId: run.orgId, month: usageMonth(now), allowance };
  const items = new Map((await pinnedItems(db, run)).map((i) => [i.id, i]));
  return new RunJudging({ ...deps, judge }, claim, org, items).run(scorers);
}
