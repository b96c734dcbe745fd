import { eq } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database } from '../../db/connect.ts';
import { experiments } from '../../db/schema.ts';
import { loadCurrentVersion } from '../experiments/current-version.ts';
import { type PatternRefusal, patternRefusals } from './redos-analysis.ts';

/** A stored pattern the server refuses to run, where it sits. */
export interface StoredPatternRefusal extends PatternRefusal {
  org_id: string;
  experiment_id: string;
  experiment: string;
}

/**
 * Patterns already stored that a save would now refuse: found by a scan of every org's current
 * experiment versions at start-up, logged, listed on the admin health route, and never run by
 * the server. Those of the static rule the shared evaluator already refuses; those only the
 * analyser finds go into the deny set that the org state consults before evaluating targeting.
 */
export class PatternWatch {
  #denied = new Set<string>();
  #found: StoredPatternRefusal[] = [];
  #scannedAt: Date | null = null;
  #scanning: Promise<unknown> | null = null;

  constructor(
    private readonly db: Database,
    private readonly log: Pick<Logger, 'warn'>,
    /** Told the orgs whose stored patterns were refused, so their cached state is rebuilt. */
    private readonly onRefused: (orgId: string) => void = () => {},
  ) {}

  /** Whether the server must not run the pattern (found by the analyser in a stored condition). */
  denies(pattern: string, insensitive: boolean): boolean {
    return this.#denied.has(`${insensitive ? 'i' : '-'}${pattern}`);
  }

  /** What the last scan found, and when it finished (null before its end). */
  status(): { scanned_at: string | null; refused: StoredPatternRefusal[] } {
    return { scanned_at: this.#scannedAt?.toISOString() ?? null, refused: [...this.#found] };
  }

  /**
   * Resolves once the scan under way (if any) has its verdict, failed or not: the org state waits
   * for it before serving or evaluating stored targeting, so a pattern the scan denies is never
   * served or run in the moments after a start.
   */
  async verdict(): Promise<void> {
    await this.#scanning?.catch(() => {});
  }

  /** Scans every org's stored targeting; what it finds replaces the last scan's list. */
  async scan(now: Date): Promise<StoredPatternRefusal[]> {
    const scanning = this.#scanOnce(now);
    this.#scanning = scanning;
    try {
      return await scanning;
    } finally {
      if (this.#scanning === scanning) this.#scanning = null;
    }
  }

  async #scanOnce(now: Date): Promise<StoredPatternRefusal[]> {
    const rows = await loadCurrentVersion(this.db, eq(experiments.kind, 'experiment'));
    const found: StoredPatternRefusal[] = [];
    for (const { row, version } of rows) {
      const targeting = version.config.targeting;
      if (targeting === undefined) continue;
      for (const refusal of await patternRefusals(targeting)) {
        found.push({
          org_id: row.orgId,
          experiment_id: row.id,
          experiment: version.config.name,
          ...refusal,
        });
      }
    }
    for (const f of found) {
      if (f.found_by === 'analyser') this.#denied.add(`${f.insensitive ? 'i' : '-'}${f.pattern}`);
      this.log.warn(
        { org_id: f.org_id, experiment_id: f.experiment_id, pointer: `#/targeting${f.pointer}` },
        `stored pattern ${JSON.stringify(f.pattern)} of experiment ${JSON.stringify(f.experiment)} is never run: ${f.reason}`,
      );
    }
    this.#found = found;
    this.#scannedAt = now;
    for (const orgId of new Set(found.map((f) => f.org_id))) this.onRefused(orgId);
    return found;
  }
}
