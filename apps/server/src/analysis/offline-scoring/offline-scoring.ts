import type { Context } from '../../context.ts';
import {
  type BuiltinScoring,
  evaluationOf,
  isJudge,
  markComplete,
  markFailed,
  scoreBuiltins,
  storeBuiltins,
  storedValues,
} from '../../domain/offline-runs/complete.ts';
import {
  type Claim,
  claimScoring,
  orphanedRuns,
  releaseScoring,
} from '../../domain/offline-runs/scoring-lease.ts';
import type { OfflineScoringQueue } from '../../domain/offline-runs/scoring-queue.ts';
import { loadRun, present, type Run, receivedCount } from '../../domain/offline-runs/service.ts';
import { leaseHolder } from '../run/run-lease.ts';
import { judgeRun } from './offline-judge.ts';

/** How often a process looks for runs left in `scoring` by a holder that is gone. */
export const SWEEP_INTERVAL_MS = 60 * 1000;
/** Runs taken over per sweep, at most; the next sweep takes the rest. */
const SWEEP_BATCH = 10;

/**
 * How long `complete` waits for the built-in scorers before it answers the run as it is
 * (`scoring`, finished in the background): under the 30 s a silent connection is kept open,
 * so a run of a million results is not cut off mid-answer.
 */
export const COMPLETE_WAIT_MS = 20 * 1000;

/** Resolves when `work` settles or after `ms`, whichever is first; at once for 0. */
function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([
    work.then(
      () => {},
      () => {},
    ),
    waited,
  ]).finally(() => clearTimeout(timer));
}

type Deps = Pick<Context, 'db' | 'judge' | 'clock' | 'log' | 'metrics'> & {
  /** COMPLETE_WAIT_MS unless given (a test's 0 shows the answer of a run that outlasts it). */
  completeWaitMs?: number;
};

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The offline runs' scoring in this process (docs/decisions/offline-evaluation.md#offline-runs). Every run in
 * `scoring` holds a lease on its row; whoever holds it scores, and a holder that died is
 * replaced once the lease has passed: by `sweep` (at start and every SWEEP_INTERVAL_MS in each
 * serving process) or by a repeated `complete`. Nothing but the lease says who scores, so any
 * number of processes may run this.
 */
export class OfflineScoring implements OfflineScoringQueue {
  private readonly jobs = new Set<Promise<void>>();
  private stopping = false;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly deps: Deps) {}

  /**
   * Claims the run and runs the built-in scorers at once: a run without a judge scorer is
   * answered complete (unless scoring outlasts COMPLETE_WAIT_MS: then `scoring`, finished in the
   * background); one with a judge scorer is answered `scoring`, the judge's queue ends it. A run
   * being scored (or done) is answered as it is.
   */
  async complete(orgId: string, runId: string): Promise<Run> {
    const { db, clock } = this.deps;
    const found = await loadRun(db, orgId, runId);
    const claim = await claimScoring(db, found.id, leaseHolder(), clock.now());
    if (claim !== null) {
      const scoring = this.score(claim);
      this.track(scoring);
      await settledWithin(scoring, this.deps.completeWaitMs ?? COMPLETE_WAIT_MS);
    }
    const row = await loadRun(db, orgId, runId);
    return present(row, await receivedCount(db, row.id));
  }

  async sweep(): Promise<number> {
    if (this.stopping) return 0;
    const { db, clock } = this.deps;
    let taken = 0;
    for (const id of await orphanedRuns(db, clock.now(), SWEEP_BATCH)) {
      const claim = await claimScoring(db, id, leaseHolder(), clock.now());
      if (claim === null) continue;
      taken += 1;
      this.deps.log.info(
        { run_id: id },
        'offline run: scoring taken over from a holder that is gone',
      );
      this.track(this.score(claim));
    }
    return taken;
  }

  start(): void {
    this.stopping = false;
    const sweep = () =>
      this.sweep().catch((err) => this.deps.log.warn({ err }, 'offline runs: sweep failed'));
    void sweep();
    this.timer = setInterval(sweep, SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async idle(): Promise<void> {
    while (this.jobs.size > 0) await Promise.allSettled([...this.jobs]);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.idle();
  }

  private track(job: Promise<void>): void {
    const tracked: Promise<void> = job
      .catch((err) => this.deps.log.error({ err }, 'offline run: scoring failed'))
      .finally(() => this.jobs.delete(tracked));
    this.jobs.add(tracked);
  }

  /** Built-ins now; the judge, when the run has one, in the background. */
  private async score(claim: Claim): Promise<void> {
    let builtins: BuiltinScoring;
    try {
      builtins = await scoreBuiltins(this.deps.db, claim.run);
      if (!(await storeBuiltins(this.deps.db, claim, builtins))) return;
    } catch (error) {
      await this.fail(claim, `Scoring failed: ${messageOf(error)}`);
      return;
    }
    if (builtins.scorers.some(isJudge)) this.track(this.judgeThenFinish(claim, builtins));
    else await this.finish(claim, builtins);
  }

  private async judgeThenFinish(claim: Claim, builtins: BuiltinScoring): Promise<void> {
    const { db, judge, metrics, clock } = this.deps;
    try {
      const outcome = await judgeRun(
        { db, judge, metrics, now: () => clock.now(), stopping: () => this.stopping },
        claim,
        builtins.scorers.filter(isJudge),
      );
      if (outcome.kind === 'done') {
        // The built-ins' values are at hand; the judge's are read back from what it stored.
        const judged = builtins.scorers.filter(isJudge).map((s) => s.name);
        const values = new Map(builtins.values);
        for (const [name, byVariant] of await storedValues(db, claim.run.id, judged))
          values.set(name, byVariant);
        await this.finish(claim, { ...builtins, values });
      } else if (outcome.kind === 'failed') await this.fail(claim, outcome.reason);
      else if (outcome.kind === 'stopped') await releaseScoring(db, claim.run.id, claim.holder);
    } catch (error) {
      await this.fail(claim, `Judge scoring failed: ${messageOf(error)}`);
    }
  }

  private async finish(claim: Claim, scoring: BuiltinScoring): Promise<void> {
    try {
      const result = evaluationOf(claim.run, scoring.scorers, scoring.values, scoring.coverage);
      await markComplete(this.deps.db, claim, scoring.scorers, result, this.deps.clock.now());
    } catch (error) {
      await this.fail(claim, `Scoring failed: ${messageOf(error)}`);
    }
  }

  private async fail(claim: Claim, reason: string): Promise<void> {
    await markFailed(this.deps.db, claim, reason, this.deps.clock.now());
  }
}
