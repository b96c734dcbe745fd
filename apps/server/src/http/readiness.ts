import type { Context } from '../context.ts';
import { withinTimeout } from '../db/database-timeout.ts';
import { migrationState } from '../db/migration-state.ts';
import { foldLagSeconds } from '../ingest/fold-lag.ts';

/**
 * The longest a readiness check waits for the database, far below ARBITER_DATABASE_TIMEOUT_MS:
 * a balancer learns of a silent database within this plus READY_CACHE_MS.
 */
export const READY_PROBE_TIMEOUT_MS = 1000;
/** A check's answer serves every probe for this long: several balancers probing every second cost one check. */
export const READY_CACHE_MS = 500;

export interface Check {
  ok: boolean;
  detail: string;
  lag_seconds?: number;
  max_lag_seconds?: number;
}

export interface ReadinessReport {
  status: 'ready' | 'not_ready';
  /** The names of the failed checks, in the order they ran. */
  failed: string[];
  checks: Record<string, Check>;
}

export type ReadinessDeps = Pick<
  Context,
  'db' | 'shards' | 'clock' | 'config' | 'lifecycle' | 'log'
>;

function reportOf(checks: Record<string, Check>): ReadinessReport {
  const failed = Object.entries(checks)
    .filter(([, check]) => !check.ok)
    .map(([name]) => name);
  return { status: failed.length === 0 ? 'ready' : 'not_ready', failed, checks };
}

const SHUTTING_DOWN = reportOf({
  shutdown: { ok: false, detail: 'the process is shutting down' },
});

/** The error's code (ECONNREFUSED, 57P01…) and nothing else: the probe answers anyone. */
function failureOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string'
    ? `the database failed the query (${code})`
    : 'the database failed the query';
}

/**
 * `/readyz`'s checks: the database answers, its migrations are current, the fold is not behind
 * by more than ARBITER_READY_MAX_FOLD_LAG_SECONDS. At most one check runs at a time and its
 * answer is reused for READY_CACHE_MS, so probes cost two small reads per interval; a check
 * that outlives READY_PROBE_TIMEOUT_MS is answered as a database that does not answer, and no
 * second one starts behind it.
 */
export class ReadinessProbe {
  private cached: { at: number; report: ReadinessReport } | null = null;
  private running: Promise<ReadinessReport> | null = null;
  private wasReady = true;

  constructor(private readonly deps: ReadinessDeps) {}

  async report(): Promise<ReadinessReport> {
    if (this.deps.lifecycle.phase !== 'serving') return SHUTTING_DOWN;
    const now = this.deps.clock.now().getTime();
    if (this.cached && now >= this.cached.at && now - this.cached.at < READY_CACHE_MS)
      return this.cached.report;
    this.running ??= this.check().finally(() => {
      this.running = null;
    });
    const report = await withinTimeout(this.running, READY_PROBE_TIMEOUT_MS).catch(() =>
      reportOf({
        database: {
          ok: false,
          detail: `the database did not answer within ${READY_PROBE_TIMEOUT_MS} ms`,
        },
      }),
    );
    this.cached = { at: this.deps.clock.now().getTime(), report };
    this.logChange(report);
    return report;
  }

  private async check(): Promise<ReadinessReport> {
    let migrations: Awaited<ReturnType<typeof migrationState>>;
    try {
      migrations = await migrationState(this.deps.db);
    } catch (error) {
      this.deps.log.warn({ err: error }, 'readiness: the database failed the probe');
      return reportOf({ database: { ok: false, detail: failureOf(error) } });
    }
    const database = { ok: true, detail: 'the database answered' };
    if (!migrations.current) {
      const detail = migrations.nothingApplied
        ? 'no migration is applied: run `arbiter migrate`, or start the server, to apply them'
        : `migration ${migrations.missing} is not applied: run \`arbiter migrate\`, or start the server, to apply it`;
      return reportOf({ database, migrations: { ok: false, detail } });
    }
    const current = { ok: true, detail: 'every migration this server knows is applied' };
    let lag: number;
    try {
      lag = await foldLagSeconds(this.deps);
    } catch (error) {
      this.deps.log.warn({ err: error }, 'readiness: the database failed the probe');
      return reportOf({ database: { ok: false, detail: failureOf(error) }, migrations: current });
    }
    const max = this.deps.config.readyMaxFoldLagSeconds;
    return reportOf({
      database,
      migrations: current,
      fold: {
        ok: lag <= max,
        detail: `the fold is ${lag} s behind (at most ${max} s)`,
        lag_seconds: lag,
        max_lag_seconds: max,
      },
    });
  }

  /** One line when readiness is lost and one when it is back, not one per probe. */
  private logChange(report: ReadinessReport): void {
    const ready = report.status === 'ready';
    if (ready === this.wasReady) return;
    this.wasReady = ready;
    if (ready) this.deps.log.info('readiness: ready again');
    else
      this.deps.log.warn({ failed: report.failed, checks: report.checks }, 'readiness: not ready');
  }
}
