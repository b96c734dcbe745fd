import { createHash } from 'node:crypto';
import { createBucketer } from '@arbiter/bucketing';
import { patternReferences } from '@arbiter/conditions';
import { clientRanges } from '@arbiter/contract';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { experiments, holdouts, layers, orgs } from '../db/schema.ts';
import type { Clock } from '../kernel/ports.ts';
import { startOfUtcDay } from '../kernel/utc-day.ts';
import { loadCurrentVersion } from './experiments/current-version.ts';
import { type EligibilityWorld, eligibilityWorld } from './experiments/eligibility.ts';
import { effectivePlan } from './plans/effective-plan.ts';
import type { Plan } from './plans/plans.ts';
import {
  type ClientPrompt,
  type ClientVariant,
  clientPrompts,
  clientVariant,
  servedReferences,
} from './prompts/references.ts';
import { coverageCheck } from './rollouts/coverage.ts';
import { type SavedGroupValues, savedGroupValues } from './saved-groups/service.ts';

/** One experiment as the client libraries receive it (docs/wire-format.md). */
export interface ClientExperiment {
  id: string;
  name: string;
  version: number;
  salt: string;
  bucket_count: number;
  ranges: Array<{ variant: string; start: number; end: number }>;
  variants: ClientVariant[];
  /** Who may enter; absent when everyone may. */
  targeting?: Record<string, unknown>;
  /** The share of eligible users who enter while it runs; absent: 1. */
  coverage?: number;
  /** The layer the experiment is in, and the layer buckets it owns; absent outside a layer. */
  layer?: string;
  layer_ranges?: Array<{ start: number; end: number }>;
  /** Ids of the holdouts that apply, in the order they were created; absent when none does. */
  holdouts?: string[];
  /** Where it is in its lifecycle; absent: running. An archived experiment is not served. */
  status?: 'draft' | 'running' | 'stopped';
  /** The variant every eligible user gets; present only when stopped. */
  served_variant?: string;
}

/** A layer as the clients receive it. */
export interface ClientLayer {
  name: string;
  salt: string;
  bucket_count: number;
}

/** A holdout as the clients receive it: its held-out buckets, computed by the server. */
export interface ClientHoldout {
  id: string;
  name: string;
  salt: string;
  bucket_count: number;
  ranges: Array<{ start: number; end: number }>;
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
    /** Absent when the org has none, as saved groups. */
    layers?: ClientLayer[];
    holdouts?: ClientHoldout[];
    /** The prompts clients resolve by name (docs/wire-format.md#prompts); absent when none. */
    prompts?: Record<string, ClientPrompt>;
  };
  /** The layers, holdouts and saved groups an experiment's eligibility reads. */
  world: EligibilityWorld;
  /** By id and by name: both address the same experiment. */
  lookup: Map<
    string,
    ClientExperiment & {
      /** `holdout`: a holdout's row, which takes exposures but is not assigned or served. */
      kind: 'experiment' | 'holdout';
      /** Archived: absent from the config and not assigned, but its events are still accepted. */
      archived: boolean;
      control: string | null;
      /** Where the analysis window starts: 00:00 UTC of the day the experiment was created. */
      windowStartMs: number;
      variantKeys: Set<string>;
      bucketOf: (userId: string) => number;
      /** The coverage check; absent when the coverage is whole. */
      covers?: (userId: string) => boolean;
      /** The targeting holds a pattern the server must not run (PatternWatch): no one matches. */
      targetingDenied: boolean;
    }
  >;
}

interface LoadedExperiment {
  client: ClientExperiment;
  kind: 'experiment' | 'holdout';
  archived: boolean;
  control: string | null;
  windowStartMs: number;
}

/**
 * The config's `status` and, when stopped, `served_variant`; absent when running, which is what
 * an entry without it means, so a config no lifecycle move touched is the bytes it was. An
 * archived row (kept for ingest, never served) keeps the status it came from.
 */
function servedStatus(row: {
  status: 'draft' | 'running' | 'stopped' | 'archived';
  archivedFrom: 'draft' | 'stopped' | null;
  servedVariant: string | null;
}): Pick<ClientExperiment, 'status' | 'served_variant'> {
  const status = row.status === 'archived' ? (row.archivedFrom ?? 'stopped') : row.status;
  if (status === 'draft') return { status };
  if (status === 'stopped' && row.servedVariant !== null)
    return { status, served_variant: row.servedVariant };
  return {};
}

/** Each holdout's experiment ids (for "all": those created after it). */
function loadHeld(db: Database, orgId: string) {
  return db
    .select({
      id: holdouts.id,
      experiments: holdouts.experiments,
      // "all" covers the experiments created after the holdout, not those before it; compared
      // in the database, whose timestamps are finer than a JavaScript Date's milliseconds.
      later: sql<string[]>`coalesce((select array_agg(e.id::text) from experiments e
        where e.org_id = holdouts.org_id and e.kind = 'experiment'
          and e.created_at > holdouts.created_at), '{}')`,
    })
    .from(holdouts)
    .where(eq(holdouts.orgId, orgId))
    .orderBy(asc(holdouts.createdAt), asc(holdouts.id));
}

/** The org's experiments (and holdouts' rows) as clients receive them, and the prompts they use. */
async function loadExperiments(
  db: Database,
  orgId: string,
): Promise<{ list: LoadedExperiment[]; prompts: Record<string, ClientPrompt> }> {
  const found = await loadCurrentVersion(db, eq(experiments.orgId, orgId)).orderBy(
    experiments.createdAt,
    experiments.id,
  );
  const held = await loadHeld(db, orgId);
  const served = found.filter((f) => f.row.kind === 'experiment' && f.row.status !== 'archived');
  const prompts = await clientPrompts(
    db,
    orgId,
    served.flatMap((f) => servedReferences(f.version.config.variants)),
  );
  const list = found.map(({ row, version }) => {
    const config = version.config;
    const client: ClientExperiment = {
      id: row.id,
      name: config.name,
      version: version.version,
      salt: config.salt,
      bucket_count: config.bucket_count,
      ranges: clientRanges(version.bucketMap),
      variants: config.variants.map((v) => clientVariant(v, prompts)),
      ...servedStatus(row),
    };
    if (config.targeting !== undefined) client.targeting = config.targeting;
    if (config.coverage !== undefined) client.coverage = config.coverage;
    if (config.layer !== undefined) {
      client.layer = config.layer;
      client.layer_ranges = version.layerRanges ?? [];
    }
    if (row.kind === 'experiment') {
      const applying = held
        .filter((h) => (h.experiments === 'all' ? h.later : h.experiments).includes(row.id))
        .map((h) => h.id);
      if (applying.length > 0) client.holdouts = applying;
    }
    // The control arm is the first slice of the allocation.
    return {
      client,
      kind: row.kind,
      archived: row.status === 'archived',
      control: config.allocation[0]?.variant ?? null,
      windowStartMs: startOfUtcDay(row.createdAt).getTime(),
    };
  });
  return { list, prompts };
}

async function loadLayers(db: Database, orgId: string): Promise<ClientLayer[]> {
  return db
    .select({ name: layers.name, salt: layers.salt, bucket_count: layers.bucketCount })
    .from(layers)
    .where(eq(layers.orgId, orgId))
    .orderBy(asc(layers.createdAt), asc(layers.id));
}

/** Holdouts from their experiment rows: the held-out buckets are the `holdout` arm's runs. */
async function loadHoldouts(
  db: Database,
  orgId: string,
  loaded: readonly LoadedExperiment[],
): Promise<ClientHoldout[]> {
  const rows = await db
    .select({ id: holdouts.id, name: holdouts.name })
    .from(holdouts)
    .where(and(eq(holdouts.orgId, orgId)))
    .orderBy(asc(holdouts.createdAt), asc(holdouts.id));
  return rows.flatMap((h) => {
    const backing = loaded.find((e) => e.client.id === h.id)?.client;
    if (backing === undefined) return [];
    return [
      {
        id: h.id,
        name: h.name,
        salt: backing.salt,
        bucket_count: backing.bucket_count,
        ranges: backing.ranges
          .filter((r) => r.variant === 'holdout')
          .map((r) => ({ start: r.start, end: r.end })),
      },
    ];
  });
}

/**
 * What the clients receive as the targeting of an experiment whose stored condition holds a
 * pattern the server will not run: a condition every evaluator reads as matching no one, and
 * that runs no pattern, so a client assigns as the server does.
 */
export function deniedTargeting(): Record<string, unknown> {
  return { $not: {} };
}

/**
 * The ETag of the served bytes: the config version, and when the deny set changed some
 * experiment's targeting, which ones, so a client holding the undenied bytes of the same
 * version (from before the scan, or another process) gets the new ones instead of a 304.
 */
function etagOf(configVersion: number, denied: readonly string[]): string {
  if (denied.length === 0) return `"${configVersion}"`;
  const digest = createHash('sha256').update(denied.join(',')).digest('base64url');
  return `"${configVersion}-${digest.slice(0, 16)}"`;
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
    /** Whether the server must not run a stored pattern (the analyser's deny set). */
    private readonly denies: (pattern: string, insensitive: boolean) => boolean = () => false,
    /** Resolves once a scan of stored patterns under way has its verdict (the deny set is whole). */
    private readonly denyVerdict: () => Promise<void> = async () => {},
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

  /**
   * Replaces, in place, the targeting of each experiment whose condition holds a denied pattern
   * with `deniedTargeting()`, so /v1/config serves what the server evaluates; returns their ids.
   */
  private denyTargeting(list: readonly LoadedExperiment[]): string[] {
    const denied: string[] = [];
    for (const { client } of list) {
      if (client.targeting === undefined) continue;
      const refs = patternReferences(client.targeting);
      if (!refs.some((r) => this.denies(r.pattern, r.insensitive))) continue;
      client.targeting = deniedTargeting();
      denied.push(client.id);
    }
    return denied;
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
      const { list, prompts } = await loadExperiments(this.db, orgId);
      const savedGroups = await savedGroupValues(this.db, orgId);
      const layerList = await loadLayers(this.db, orgId);
      const holdoutList = await loadHoldouts(this.db, orgId, list);
      await this.denyVerdict();
      const denied = this.denyTargeting(list);
      const lookup = lookupOf(list, denied);
      state = {
        orgId,
        configVersion,
        plan,
        etag: etagOf(configVersion, denied),
        body: {
          config_version: configVersion,
          bucketing_version: '1',
          experiments: list
            .filter((e) => e.kind === 'experiment' && !e.archived)
            .map((e) => e.client),
          // Absent, not {}, for an org without groups: its document stays as it was.
          ...(Object.keys(savedGroups).length > 0 ? { saved_groups: savedGroups } : {}),
          ...(layerList.length > 0 ? { layers: layerList } : {}),
          ...(holdoutList.length > 0 ? { holdouts: holdoutList } : {}),
          ...(Object.keys(prompts).length > 0 ? { prompts } : {}),
        },
        world: eligibilityWorld({
          layers: layerList,
          holdouts: holdoutList,
          saved_groups: savedGroups,
        }),
        lookup,
      };
    }
    if (generation === this.generation)
      this.entries.set(orgId, { state, checkedAt: this.clock.now().getTime() });
    return state;
  }
}

/** Each experiment's evaluation entry, under its id and under its name. */
function lookupOf(list: LoadedExperiment[], denied: string[]): OrgState['lookup'] {
  const lookup: OrgState['lookup'] = new Map();
  for (const { client, kind, archived, control, windowStartMs } of list) {
    const enriched = {
      ...client,
      kind,
      archived,
      control,
      windowStartMs,
      variantKeys: new Set(client.variants.map((v) => v.key)),
      bucketOf: createBucketer(client.salt, client.bucket_count),
      ...(client.coverage === undefined
        ? {}
        : { covers: coverageCheck(client.salt, client.coverage) }),
      targetingDenied: denied.includes(client.id),
    };
    lookup.set(client.id, enriched);
    lookup.set(client.name, enriched);
  }
  return lookup;
}
