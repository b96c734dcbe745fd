import type {
  BatchSize,
  Component,
  CpuPerEvent,
  MeasuredRun,
} from '../../apps/server/src/cli/capacity-constants.ts';
import {
  fitKafkaModel,
  KAFKA_COMPONENTS,
  type KafkaComponent,
} from '../../apps/server/src/cli/capacity-fit.ts';
import type { Shape } from './deployment.ts';
import type { Measured } from './measure.ts';

export const COMPONENTS = ['api', 'brokers', 'fold', 'postgres', 'objectStore'] as const;

export const label = (s: Shape) =>
  `${s.kafka ? `Kafka ${s.apis} API/${s.partitions} part/${s.foldWorkers} fold` : 'single node'}${s.objectStore ? ', object store' : ''}${s.meteredAtFold === true ? ', metered at fold' : ''}`;
/** A Kafka shape as `A/P/W`. */
export const specOf = (s: Shape) => `${s.apis}/${s.partitions}/${s.foldWorkers}`;

interface Footprint {
  bytes: Record<string, number>;
  rssMiB: Record<string, number>;
}
export interface Run {
  byBatch: Record<string, Measured>;
  footprint: Footprint;
}
/** A run's rounds, by deployment label (what BENCH_OUT saves). */
export type Rounds = Record<string, { shape: Shape; runs: Run[] }>;

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
export const batchesOf = (rounds: Rounds) =>
  [...new Set(Object.values(rounds).flatMap((r) => r.runs.flatMap((x) => Object.keys(x.byBatch))))]
    .map(Number)
    .sort((a, b) => a - b) as BatchSize[];

/** The median of each figure over the rounds: `field` picks all CPU or the net of idle. */
export function medianOf(
  rounds: Rounds,
  key: string,
  b: BatchSize,
  field: 'perEvent' | 'netPerEvent',
) {
  const runs = (rounds[key]?.runs ?? []).map((r) => r.byBatch[b]).filter((m) => m !== undefined);
  const of = (pick: (m: Measured) => number | undefined) => {
    const xs = runs.map(pick).filter((x) => x !== undefined) as number[];
    return xs.length === 0 ? undefined : median(xs);
  };
  return {
    perEvent: Object.fromEntries(COMPONENTS.map((c) => [c, of((m) => m[field][c])])) as Record<
      Component,
      number | undefined
    >,
    idle: Object.fromEntries(COMPONENTS.map((c) => [c, of((m) => m.idle[c])])) as Record<
      Component,
      number | undefined
    >,
    total: of((m) => (field === 'perEvent' ? m.total : m.netTotal)) ?? Number.NaN,
    rate: of((m) => m.eventsPerSecond) ?? Number.NaN,
  };
}

/** The deployment of the run that matches, by label. */
const keyOf = (rounds: Rounds, want: (s: Shape) => boolean) =>
  Object.keys(rounds).find((k) => want((rounds[k] as { shape: Shape }).shape));
const single = (store: boolean) => (s: Shape) => !s.kafka && s.objectStore === store;
/** The capacity model's Kafka path: metered at acceptance, the default. */
const kafka = (spec: string, store: boolean) => (s: Shape) =>
  s.kafka && s.objectStore === store && specOf(s) === spec && s.meteredAtFold !== true;

const round1 = (n: number) => Math.round(n * 10) / 10;
const defined = (r: Record<string, number | undefined>): CpuPerEvent =>
  Object.fromEntries(
    Object.entries(r).flatMap(([k, v]) => (v === undefined ? [] : [[k, round1(v)]])),
  );

/** Net CPU per event of a deployment at each batch size of the run. */
function netTable(rounds: Rounds, key: string | undefined) {
  if (key === undefined) return {};
  return Object.fromEntries(
    batchesOf(rounds).map((b) => [b, defined(medianOf(rounds, key, b, 'netPerEvent').perEvent)]),
  );
}

function footprintOf(rounds: Rounds, key: string | undefined, of: 'bytes' | 'rssMiB', k: string) {
  const runs = key === undefined ? [] : (rounds[key]?.runs ?? []);
  const xs = runs.map((r) => r.footprint[of][k]).filter((x) => x !== undefined) as number[];
  return xs.length === 0 ? Number.NaN : Math.round(median(xs));
}

/** The Kafka model fitted on the shapes named: every round of each one is an observation. */
function fitOn(rounds: Rounds, fittedOn: string[], sharedMs: Record<KafkaComponent, number>) {
  // Every round of each fitted shape is an observation: a round's rate and its CPU go together.
  const observations = fittedOn.flatMap((spec) => {
    const key = keyOf(rounds, kafka(spec, false));
    if (key === undefined) throw new Error(`the run has no Kafka ${spec} to fit on`);
    const { shape, runs } = rounds[key] as { shape: Shape; runs: Run[] };
    return runs.flatMap((r) => {
      const m = r.byBatch[100];
      if (m === undefined) return [];
      return [
        {
          apis: shape.apis,
          foldWorkers: shape.foldWorkers,
          eventsPerSecond: m.eventsPerSecond,
          cpuPerEventUs: m.perEvent,
        },
      ];
    });
  });
  return fitKafkaModel(observations, sharedMs);
}

/**
 * The model's constants from a run: the net tables, each process's idle CPU, the Kafka model
 * fitted on `fittedOn` (without the object store) at batch 100, what the object store adds to
 * the single node, and bytes and memory.
 */
export function measuredFrom(
  rounds: Rounds,
  fittedOn: string[],
  run: MeasuredRun['run'],
): MeasuredRun {
  const k = {
    single: keyOf(rounds, single(false)),
    singleStore: keyOf(rounds, single(true)),
    kafka: keyOf(rounds, kafka('1/1/1', false)),
    kafkaStore: keyOf(rounds, kafka('1/1/1', true)),
  };
  const at100 = (key: string | undefined, f: 'perEvent' | 'netPerEvent') =>
    key === undefined ? null : medianOf(rounds, key, 100, f);
  const base = at100(k.kafka, 'perEvent');
  const plain = at100(k.single, 'netPerEvent');
  const stored = at100(k.singleStore, 'netPerEvent');
  if (base === null || plain === null || stored === null)
    throw new Error(
      'the run needs the single node, with and without the store, and Kafka 1/1/1 at batch 100',
    );
  const sharedMs = {
    api: 0,
    brokers: base.idle.brokers ?? 0,
    fold: 0,
    postgres: base.idle.postgres ?? 0,
  };
  const fitted = fitOn(rounds, fittedOn, sharedMs);
  const rounded = (r: Record<string, number>) =>
    Object.fromEntries(KAFKA_COMPONENTS.map((c) => [c, round1(r[c] ?? 0)])) as typeof sharedMs;
  const storeIdle = round1(at100(k.singleStore, 'perEvent')?.idle.objectStore ?? 0);
  return {
    run,
    cpu: {
      singleNode: netTable(rounds, k.single),
      singleNodeObjectStore: netTable(rounds, k.singleStore),
      kafka: netTable(rounds, k.kafka),
      kafkaObjectStore: netTable(rounds, k.kafkaStore),
    },
    idleMs: {
      api: round1(base.idle.api ?? 0),
      brokers: round1(base.idle.brokers ?? 0),
      fold: round1(base.idle.fold ?? 0),
      postgres: round1(base.idle.postgres ?? 0),
      objectStore: storeIdle,
      singleNode: round1(at100(k.single, 'perEvent')?.idle.api ?? 0),
    },
    kafka: {
      fittedOn,
      perEventUs: rounded(fitted.perEventUs),
      perApiProcessMs: rounded(fitted.perApiProcessMs),
      perFoldWorkerMs: rounded(fitted.perFoldWorkerMs),
      sharedMs: rounded(sharedMs),
    },
    objectStore: {
      perEventUs: {
        api: round1((stored.perEvent.api ?? 0) - (plain.perEvent.api ?? 0)),
        postgres: round1((stored.perEvent.postgres ?? 0) - (plain.perEvent.postgres ?? 0)),
        objectStore: round1(stored.perEvent.objectStore ?? 0),
      },
      idleMs: storeIdle,
    },
    bytes: {
      eventRow: footprintOf(rounds, k.kafka, 'bytes', 'events'),
      eventRowObjectStore: footprintOf(rounds, k.singleStore, 'bytes', 'events'),
      claimRow: footprintOf(rounds, k.kafka, 'bytes', 'event_claims'),
      userDayStatsRow: footprintOf(rounds, k.single, 'bytes', 'user_day_stats'),
      objectStorePerEvent: footprintOf(rounds, k.singleStore, 'bytes', 'objectStorePerEvent'),
      brokerPerEvent: footprintOf(rounds, k.kafka, 'bytes', 'brokerPerEvent'),
    },
    memoryMiB: {
      api: footprintOf(rounds, k.kafka, 'rssMiB', 'api'),
      fold: footprintOf(rounds, k.kafka, 'rssMiB', 'fold'),
      broker: footprintOf(rounds, k.kafka, 'rssMiB', 'broker'),
    },
  };
}
