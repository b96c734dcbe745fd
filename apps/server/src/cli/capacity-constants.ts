/**
 * The measured constants of the capacity model (docs/capacity.md quotes them): CPU per
 * accepted-and-folded event per component, bytes per stored row and peak memory per process,
 * from one run of `bench/scale-out/cpu-per-event.bench.ts` (its commit and command below),
 * and the nightly analysis's CPU per user and experiment from `bench/server/pipeline.bench.ts`.
 * A new run replaces the numbers here and the table in docs/capacity.md together; the CLI's
 * test holds the doc's worked example to the arithmetic over these numbers.
 */

export type Component = 'api' | 'brokers' | 'fold' | 'postgres' | 'objectStore';
/** CPU µs per accepted-and-folded event, by component. */
export type CpuPerEvent = Partial<Record<Component, number>>;
export type BatchSize = 1 | 10 | 100;

export const MEASURED_RUN = {
  command: 'BENCH_EVENTS=5000 BENCH_ROUNDS=3 npx tsx bench/scale-out/cpu-per-event.bench.ts',
  commit: '7952feb',
  events: 5000,
  rounds: 3,
  loadAverage: '17–33',
  /** Each model call's prompt and response, in characters. */
  promptChars: 1000,
  responseChars: 300,
};

/**
 * Net of idle CPU (what a component spends with nothing to do, `MEASURED_IDLE_MS`, is taken out
 * over the stretch's seconds), medians over the run's rounds. The single node's `api` is its one
 * process, which also folds; the Kafka path's is the API processes alone (1 API process, 1
 * partition, 1 fold worker, 1 broker with replication 1, no object store).
 */
export const MEASURED_CPU: Record<
  'singleNode' | 'singleNodeObjectStore' | 'kafka',
  Record<BatchSize, CpuPerEvent>
> = {
  singleNode: {
    1: { api: 631.8, postgres: 354.9 },
    10: { api: 113.7, postgres: 79.0 },
    100: { api: 61.3, postgres: 42.6 },
  },
  singleNodeObjectStore: {
    1: { api: 3099.4, postgres: 453.3, objectStore: 1076.0 },
    10: { api: 1192.6, postgres: 106.4, objectStore: 486.0 },
    100: { api: 1319.1, postgres: 37.1, objectStore: 408.4 },
  },
  kafka: {
    1: { api: 2316, brokers: 646.6, fold: 400.9, postgres: 1539.5 },
    10: { api: 258.0, brokers: 78.1, fold: 55.4, postgres: 274.0 },
    100: { api: 152.1, brokers: 10.1, fold: 30.4, postgres: 98.0 },
  },
};

/**
 * CPU ms a second one process spends with nothing to do (the PostgreSQL server and the object
 * store as a whole), medians over the run's rounds and batch sizes.
 */
export const MEASURED_IDLE_MS: Record<Component, number> = {
  api: 0,
  brokers: 20.0,
  fold: 10.0,
  postgres: 8.0,
  objectStore: 2.0,
};

/** Bytes per row with its indexes and TOAST (`pg_total_relation_size` over the rows), and per event elsewhere. */
export const MEASURED_BYTES = {
  /** An `events` row whose model text is in the row. */
  eventRow: 1899,
  /** An `events` row whose model text is in the object store (a reference, sizes, a SHA-256). */
  eventRowObjectStore: 763,
  /** An `event_claims` row (the Kafka path's acceptance). */
  claimRow: 257,
  /** A `user_day_stats` row: one user's aggregates of one experiment, arm and day. */
  userDayStatsRow: 408,
  /** One event's model text on the object store's disk. */
  objectStorePerEvent: 1442,
  /** One event on a broker's disk, one replica. */
  brokerPerEvent: 1840,
};

/** Peak resident memory of one process in the run, MiB. */
export const MEASURED_MEMORY_MIB = { api: 186, fold: 212, broker: 467 };

/**
 * The nightly analysis: CPU µs per user and experiment at 3 metrics, on one database and
 * flat from 62,500 users on (bench/server/RESULTS.md, `pipeline.bench.ts` at 1,000,000 users:
 * 32.5–34.7 s for 10 experiments; the upper end taken).
 */
export const PIPELINE_CPU = { microsPerUserExperiment: 3.5, metrics: 3 };

/** Planning rules: choices, not measurements (docs/capacity.md says why each). */
export const PLANNING = {
  /** The share of a core the plan fills at the target rate: the rest is for peaks. */
  utilisation: 0.6,
  /** Of each kind of process, at least this many, so that one can be lost. */
  minProcesses: 2,
  brokers: 3,
  replication: 3,
  /** How long the topic keeps a message: the fold is meant to be seconds behind. */
  topicRetentionDays: 1,
  /** Partitions per fold worker: room to double the fold without touching the topic. */
  partitionsPerFoldWorker: 2,
  coresPerShard: 16,
  diskPerShardGiB: 4096,
  /** The nightly analysis's CPU per shard must fit this, run one statement at a time. */
  nightlySecondsPerShard: 3600,
  /** Disk headroom over the rows: WAL, free space left by updates and vacuum. */
  diskHeadroom: 1.5,
  /** Memory per shard: at least this, and four times the day's aggregates it folds into. */
  minShardMemoryGiB: 8,
  /** Headroom over a process's measured peak memory. */
  memoryHeadroom: 1.5,
};
