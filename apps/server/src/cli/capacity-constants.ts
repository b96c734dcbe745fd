/**
 * The measured constants of the capacity model (docs/capacity.md quotes them): CPU per
 * accepted-and-folded event per component, bytes per stored row and peak memory per process,
 * from one run of `bench/scale-out/cpu-per-event.bench.ts` (its commit and command below),
 * and the nightly analysis's CPU per user and experiment from `bench/server/pipeline.bench.ts`.
 * The region between the `measured` markers is written by the bench from a saved run
 * (`BENCH_WRITE=run.json`), with docs/capacity.md's tables; the CLI's test holds the doc's
 * worked example to the arithmetic over these numbers.
 */

import type { KafkaModel } from './capacity-fit.ts';

export type Component = 'api' | 'brokers' | 'fold' | 'postgres' | 'objectStore';
/** CPU µs per accepted-and-folded event, by component. */
export type CpuPerEvent = Partial<Record<Component, number>>;
export type BatchSize = 1 | 10 | 100;

/** What one run of the bench measured (the region below is written from a saved run). */
export interface MeasuredRun {
  run: {
    command: string;
    commit: string;
    events: number;
    rounds: number;
    loadAverage: string;
    /** Each model call's prompt and response, in characters. */
    promptChars: number;
    responseChars: number;
  };
  /**
   * Net of idle CPU (what a component spends with nothing to do, `idleMs`, is taken out over
   * the stretch's seconds), medians over the run's rounds. The single node's `api` is its one
   * process, which also folds; the Kafka path's is the API processes alone (1 API process, 1
   * partition, 1 fold worker, 1 broker with replication 1).
   */
  cpu: Record<
    'singleNode' | 'singleNodeObjectStore' | 'kafka' | 'kafkaObjectStore',
    Partial<Record<BatchSize, CpuPerEvent>>
  >;
  /**
   * CPU ms a second one process spends with nothing to do (the PostgreSQL server and the
   * object store as a whole; the single node's one process under `singleNode`), medians.
   */
  idleMs: Record<Component | 'singleNode', number>;
  /** The Kafka path at batch 100, fitted on `fittedOn` (A/P/W shapes of the same run). */
  kafka: KafkaModel & { fittedOn: string[] };
  /**
   * What the object store adds to the single node at batch 100, net of idle (µs per event),
   * and the store's idle: the Kafka path on the object store is the Kafka model plus this.
   */
  objectStore: { perEventUs: CpuPerEvent; idleMs: number };
  /** Bytes per row with its indexes and TOAST (`pg_total_relation_size` over the rows), and per event elsewhere. */
  bytes: {
    /** An `events` row whose model text is in the row. */
    eventRow: number;
    /** An `events` row whose model text is in the object store (a reference, sizes, a SHA-256). */
    eventRowObjectStore: number;
    /** An `event_claims` row (the Kafka path's acceptance). */
    claimRow: number;
    /** A `user_day_stats` row: one user's aggregates of one experiment, arm and day. */
    userDayStatsRow: number;
    /** One event's model text on the object store's disk. */
    objectStorePerEvent: number;
    /** One event on a broker's disk, one replica. */
    brokerPerEvent: number;
  };
  /** Peak resident memory of one process in the run, MiB. */
  memoryMiB: { api: number; fold: number; broker: number };
}

// measured: start (written by `BENCH_WRITE=run.json npx tsx bench/scale-out/cpu-per-event.bench.ts`)
export const MEASURED: MeasuredRun = {
  run: {
    command:
      'BENCH_EVENTS=5000 BENCH_ROUNDS=5 BENCH_BATCHES=100 npx tsx bench/scale-out/cpu-per-event.bench.ts',
    commit: '30262265',
    events: 5000,
    rounds: 5,
    loadAverage: '1–2',
    promptChars: 1000,
    responseChars: 300,
  },
  cpu: {
    singleNode: {
      '100': {
        api: 93.9,
        postgres: 40.8,
      },
    },
    singleNodeObjectStore: {
      '100': {
        api: 1554.6,
        postgres: 49.5,
        objectStore: 636.4,
      },
    },
    kafka: {
      '100': {
        api: 114,
        brokers: 24.3,
        fold: 17.1,
        postgres: 65.5,
      },
    },
    kafkaObjectStore: {
      '100': {
        api: 1592,
        brokers: 17.1,
        fold: 4.5,
        postgres: 73.7,
        objectStore: 518.2,
      },
    },
  },
  idleMs: {
    api: 0,
    brokers: 26,
    fold: 14,
    postgres: 8,
    objectStore: 0,
    singleNode: 14,
  },
  kafka: {
    fittedOn: ['1/1/1', '2/1/1', '1/3/3'],
    perEventUs: {
      api: 87,
      brokers: 6.1,
      fold: 19.3,
      postgres: 64.3,
    },
    perApiProcessMs: {
      api: 137,
      brokers: 47.5,
      fold: 2.4,
      postgres: 14.3,
    },
    perFoldWorkerMs: {
      api: 1.1,
      brokers: 4.3,
      fold: 14.1,
      postgres: 19.7,
    },
    sharedMs: {
      api: 0,
      brokers: 26,
      fold: 0,
      postgres: 8,
    },
  },
  objectStore: {
    perEventUs: {
      api: 1460.7,
      postgres: 8.7,
      objectStore: 636.4,
    },
    idleMs: 0,
  },
  bytes: {
    eventRow: 1910,
    eventRowObjectStore: 749,
    claimRow: 270,
    userDayStatsRow: 415,
    objectStorePerEvent: 1443,
    brokerPerEvent: 1715,
  },
  memoryMiB: {
    api: 184,
    fold: 184,
    broker: 439,
  },
};
// measured: end

export const MEASURED_RUN = MEASURED.run;
export const MEASURED_CPU = MEASURED.cpu;
export const MEASURED_IDLE_MS = MEASURED.idleMs;
export const MEASURED_BYTES = MEASURED.bytes;
export const MEASURED_MEMORY_MIB = MEASURED.memoryMiB;

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
