import { createBucketer } from '@arbiter/bucketing';
import { clientRanges } from '@arbiter/contract';
import { eq } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { experiments, orgs } from '../db/schema.ts';
import type { Clock } from '../kernel/ports.ts';
import { startOfUtcDay } from '../kernel/utc-day.ts';
import type { Variant } from '../schemas/experiment-config.ts';
import { loadCurrentVersion } from './experiments/current-version.ts';
import { effectivePlan } from './plans/effective-plan.ts';
import type { Plan } from './plans.ts';
import { type SavedGroupValues, savedGroupValues } from './saved-groups/service.ts';

/** One experiment as the client libraries receive it (docs/wire-format.md). */
export interface ClientExperiment {
  id: string;
  name: string;
  version: number;
  salt: string;
  bucket_count: number;
  ranges: Array<{ variant: string; start: number; end: number }>;
  variants: Variant[];
  /** Who may enter; absent when everyone may. */
  targeting?: Record<string, unknown>;
}

export interface OrgState {
  orgId: string;
  configVersion: number;
  plan: Plan;
  etag: string;
  body: {
    config_version: number;
    bucketing_version: '1';
    experiments: ClientExperiment[];
    /** Saved groups by key, for `$inGroup`; absent when the org has none. */
    saved_groups?: SavedGroupValues;
  };
  /** The saved groups targeting reads (empty when none). */
  savedGroups: SavedGroupValues;
  /** By id and by name: both address the same experiment. */
  lookup: Map<
    string,
    ClientExperiment & {
      control: string | null;
      /** Where the analysis window starts: 00:00 UTC of the day the experiment was created. */
      windowStartMs: number;
      variantKeys: Set<string>;
      bucketOf: (userId: string) => number;
    }
  >;
}

async function loadExperiments(
  db: Database,
  orgId: string,
): Promise<Array<{ client: ClientExperiment; control: string | null; windowStartMs: number }>> {
  const found = await loadCurrentVersion(db, eq(experiments.orgId, orgId)).orderBy(
    experiments.createdAt,
    experiments.id,
  );
  return found.map(({ row, version }) => {
    const config = version.config;
    const client: ClientExperiment = {
      id: row.id,
      name: config.name,
      version: version.version,
      salt: config.salt,
      bucket_count: config.bucket_count,
      ranges: clientRanges(version.bucketMap),
      variants: config.variants,
    };
    if (config.targeting !== undefined) client.targeting = config.targeting;
    // The control arm is the first slice of the allocation.
    return {
      client,
      control: config.allocation[0]?.variant ?? null,
      windowStartMs: startOfUtcDay(row.createdAt).getTime(),
    };
  });
}

/**
 * The org's client config and plan, kept in memory so assign and ingest make no database round
 * trip per request. An entry is re-validated against orgs.config_version once it is older than
 * `maxAgeMs`, so a change made by another process is followed within that time; changes made
 * in this process invalidate at once.
 */
export class OrgStateCache {
  private readonly entries = new Map<string, { state: OrgState; checkedAt: number }>();
  private readonly inflight = new Map<string, Promise<OrgState>>();
  /** Rises with every invalidation, so a refresh that read before a change is not kept after it. */
  private generation = 0;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly maxAgeMs = 1000,
  ) {}

  invalidate(orgId: string): void {
    this.generation += 1;
    this.entries.delete(orgId);
    this.inflight.delete(orgId);
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
    this.inflight.clear();
  }

  /** The org's state while it needs no re-validation; undefined when `get` must ask. */
  fresh(orgId: string): OrgState | undefined {
    const entry = this.entries.get(orgId);
    if (entry && this.clock.now().getTime() - entry.checkedAt < this.maxAgeMs) return entry.state;
    return undefined;
  }

  async get(orgId: string): Promise<OrgState> {
    const state = this.fresh(orgId);
    if (state !== undefined) return state;
    const entry = this.entries.get(orgId);
    let pending = this.inflight.get(orgId);
    if (!pending) {
      const started = this.refresh(orgId, entry?.state).finally(() => {
        if (this.inflight.get(orgId) === started) this.inflight.delete(orgId);
      });
      pending = started;
      this.inflight.set(orgId, started);
    }
    return pending;
  }

  private async refresh(orgId: string, previous: OrgState | undefined): Promise<OrgState> {
    const generation = this.generation;
    const [org] = await this.db
      .select({ configVersion: orgs.configVersion })
      .from(orgs)
      .where(eq(orgs.id, orgId));
    const configVersion = org?.configVersion ?? 0;
    const { plan } = await effectivePlan(this.db, orgId, this.clock.now());
    let state: OrgState;
    if (previous && previous.configVersion === configVersion) {
      state = { ...previous, plan };
    } else {
      const list = await loadExperiments(this.db, orgId);
      const savedGroups = await savedGroupValues(this.db, orgId);
      const lookup: OrgState['lookup'] = new Map();
      for (const { client, control, windowStartMs } of list) {
        const enriched = {
          ...client,
          control,
          windowStartMs,
          variantKeys: new Set(client.variants.map((v) => v.key)),
          bucketOf: createBucketer(client.salt, client.bucket_count),
        };
        lookup.set(client.id, enriched);
        lookup.set(client.name, enriched);
      }
      state = {
        orgId,
        configVersion,
        plan,
        etag: `"${configVersion}"`,
        body: {
          config_version: configVersion,
          bucketing_version: '1',
          experiments: list.map((e) => e.client),
          // Absent, not {}, for an org without groups: its document stays as it was.
          ...(Object.keys(savedGroups).length > 0 ? { saved_groups: savedGroups } : {}),
        },
        savedGroups,
        lookup,
      };
    }
    if (generation === this.generation)
      this.entries.set(orgId, { state, checkedAt: this.clock.now().getTime() });
    return state;
  }
}
