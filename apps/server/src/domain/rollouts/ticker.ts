import type { Logger } from 'pino';
import type { Database } from '../../db/connect.ts';
import { PeriodicPass } from '../../kernel/periodic-pass.ts';
import type { Clock } from '../../kernel/ports.ts';
import { advanceDue } from './ramp.ts';

/** How often a serving process looks for ramps due to advance or to be guarded. */
export const TICK_INTERVAL_MS = 15_000;

export interface TickerDeps {
  db: Database;
  clock: Clock;
  log: Pick<Logger, 'warn'>;
  /** Told of each org whose config a tick changed, so this process serves it at once. */
  changed: (orgId: string) => void;
}

/**
 * The ramps' clock of one process: every TICK_INTERVAL_MS it advances the ramps whose hold has
 * passed, then runs the guard evaluations that are due (`guard`, given by the wiring: the guard
 * reads the analysis, which this layer may not). Any number of processes may run it: each due
 * row is claimed by one (`for update skip locked`), and the state lives in the database, so a
 * restart resumes where the rows say.
 */
export class RolloutTicker {
  private readonly loop = new PeriodicPass(TICK_INTERVAL_MS, () => this.tick());

  constructor(
    private readonly deps: TickerDeps,
    private readonly guard: (now: Date) => Promise<string[]> = async () => [],
  ) {}

  start(): void {
    this.loop.start();
  }

  /** One pass at the clock's now: advances, then guard evaluations (tests call it). */
  async tick(): Promise<void> {
    const now = this.deps.clock.now();
    try {
      for (const orgId of await advanceDue(this.deps.db, now)) this.deps.changed(orgId);
      for (const orgId of await this.guard(now)) this.deps.changed(orgId);
    } catch (err) {
      this.deps.log.warn({ err }, 'a rollout tick failed; retried at the next one');
    }
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
